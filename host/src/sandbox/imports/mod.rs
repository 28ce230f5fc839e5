//! The host side of every import a provider component links, one file per
//! interface; each checks the calling instance's grants itself.

pub(crate) mod denied;
pub(crate) mod files;
pub(crate) mod host;
pub(crate) mod http;
pub(crate) mod wasi;
