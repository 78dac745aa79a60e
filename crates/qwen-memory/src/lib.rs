//! `qwen_memory`: persistent, file-based memory for AI coding assistants, one memory per Git
//! project, file-compatible with Qwen Code's Managed Auto-Memory.
//!
//! The crates are the layers, and data flows one way (docs/DESIGN.md, "Layers"; docs/
//! development.md, "Crates"): the CLI (the `git-qwen-memory` binary) parses and renders; [`ops`]
//! holds one module per command; [`integrations`] meets Git, the agents, transcripts and the
//! model; [`storage`] (crate `qwen-memory-storage`) owns roots, paths and the single write path;
//! [`formats`] (crate `qwen-memory-formats`) are pure functions over text; the offline
//! extractor (crate `qwen-memory-extract`) is [`ops::extract::heuristic`] and
//! [`ops::extract::filter`]. Within this crate a module never depends on a layer above its own
//! (`tests/layers.rs` checks it). Nothing in the library prints.

pub use qwen_memory_formats as formats;
pub use qwen_memory_storage as storage;

pub mod integrations;
pub mod ops;

#[cfg(test)]
mod tests {
    #[test]
    fn env_vars_lists_the_variables_the_upper_layers_read() {
        for var in [
            crate::ops::hook_entry::ENV_HOOK_EXEC,
            crate::integrations::telemetry::ENV_TELEMETRY,
            crate::integrations::sharing::ENV_QWEN_LOCAL,
            crate::integrations::git::config::ENV_CONFIG_GLOBAL,
            crate::integrations::git::config::ENV_CONFIG_SYSTEM,
            crate::integrations::git::config::ENV_CONFIG_NOSYSTEM,
            crate::integrations::git::config::ENV_CONFIG_COUNT,
            crate::integrations::git::config::ENV_CONFIG_PARAMETERS,
        ] {
            assert!(
                crate::storage::settings::ENV_VARS.contains(&var),
                "{var} missing from ENV_VARS"
            );
        }
    }
}
