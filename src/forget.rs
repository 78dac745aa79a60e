//! Forget (placeholder).
