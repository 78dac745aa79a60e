//! `qwen_memory`: persistent, file-based memory for AI coding assistants, one memory per Git
//! project, file-compatible with Qwen Code's Managed Auto-Memory.
//!
//! The folders are the layers, and data flows one way (docs/DESIGN.md, "Layers"): the CLI
//! (`src/main.rs`, `src/cli/`) parses and renders; [`ops`] holds one module per command;
//! [`integrations`] meets Git, the agents, transcripts and the model; [`storage`] owns roots,
//! paths and the single write path; [`formats`] are pure functions over text. A module never
//! depends on a layer above its own (`tests/layers.rs` checks it). Nothing in the library prints.

pub mod formats;
pub mod integrations;
pub mod ops;
pub mod storage;
