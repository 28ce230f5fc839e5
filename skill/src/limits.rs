//! How many files one skill may carry, and how many bytes, as the MCP Skills
//! Extension (SEP-2640) sets them. The provider boundary refuses a skill past
//! them and the MCP server will not serve one, so both read them from here.

/// Most files one skill may list.
pub const MAX_FILES: usize = 512;
/// Most bytes one skill's files may add up to (and so one file may have).
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;
