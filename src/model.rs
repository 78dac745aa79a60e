//! The OpenAI-compatible model client shared by recall, extract, dream and forget.
