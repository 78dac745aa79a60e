//! Recall: picks the memories relevant to a query (SPEC §6).

pub mod select;
