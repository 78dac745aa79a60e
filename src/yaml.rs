//! The one place YAML is parsed: frontmatter values (reference qwen-storage §3.5).
