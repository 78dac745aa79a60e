//! `qwen_memory`: persistent, file-based memory for AI coding assistants, one memory per Git
//! project, file-compatible with Qwen Code's Managed Auto-Memory.
//!
//! Each module is one domain. Data flows one way: the CLI (`src/main.rs`) calls a domain module,
//! which reads and writes through [`store`]. Domain modules never print; they return values the
//! CLI renders.

pub mod agent;
pub mod backup;
pub mod browse;
pub mod check;
pub mod context;
pub mod doc;
pub mod dream;
pub mod entries;
pub mod extract;
pub mod forget;
pub mod git;
pub mod hook;
pub mod index;
pub mod model;
pub mod project;
pub mod qwen_env;
pub mod qwen_settings;
pub mod recall;
pub mod remember;
pub mod root;
pub mod safe_fs;
pub mod scan;
pub mod secrets;
pub mod settings;
pub mod sharing;
pub mod status;
pub mod store;
pub mod telemetry;
pub mod text;
pub mod transcript;
pub mod yaml;
