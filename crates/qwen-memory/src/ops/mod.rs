//! Operations: one module per command. Each owns its policy (for example autoCommit), returns a
//! report for the CLI to render, and reads and writes through the storage layer
//! (docs/DESIGN.md, "Layers").

pub mod browse;
pub mod check;
pub mod dream;
pub mod extract;
pub mod forget;
pub mod hook_entry;
pub mod recall;
pub mod remember;
pub mod status;
pub mod trigger;
pub mod undo;
