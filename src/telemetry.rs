//! Telemetry events and the hook log (SPEC §12).
