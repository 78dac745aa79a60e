//! Integrations: the outside world this tool meets — Git, the agents' settings, chat
//! transcripts, the optional model, telemetry, and sharing the work with Qwen Code
//! (docs/DESIGN.md, "Layers").

pub mod agent;
pub mod detached;
pub mod embeddings;
pub mod git;
pub mod http;
pub mod mcp_config;
pub mod model;
pub mod sharing;
pub mod telemetry;
pub mod transcript;
