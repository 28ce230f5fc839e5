//! The `SKILL.md` format as skillhost reads it, in one place.
//!
//! Every rule about what a skill document says lives here, and only here:
//! the host, every provider component (compiled to WebAssembly), the
//! validator, the mirror publisher and the benchmark's native baseline all
//! use these functions, so they cannot drift apart.
//!
//! - [`frontmatter`]: splitting a document and normalising its fields;
//!   [`yaml`] parses the YAML, [`json`] gives the JSON view, and
//!   [`json_fields`] reads a provider's JSON back into the same tree.
//! - [`names`]: which skill names are safe identifiers.
//! - [`braces`]: brace expansion of `paths` globs.
//! - [`digest`]: `sha256:<hex>` digests, made and checked.
//! - [`invisible`]: characters a reader cannot see (Unicode format characters).
//! - [`segments`]: which `/`-separated paths may be joined to a base.
//! - [`layout`]: root folder names and which entries of a root are skills.
//! - [`limits`]: how many files and bytes one skill may carry.
//! - [`reads`]: the batches a provider reads a root's documents in.
//!
//! ```
//! let doc = skillhost_skill::frontmatter::parse_document(
//!     b"---\nname: pdf\ndescription: Read PDF files\n---\n# PDF\n",
//!     "pdf",
//! )
//! .unwrap();
//! assert_eq!(doc.frontmatter.description.as_deref(), Some("Read PDF files"));
//! assert_eq!(doc.body, "# PDF\n");
//! ```

pub mod braces;
pub mod digest;
mod fast_yaml;
mod fields;
pub mod frontmatter;
pub mod invisible;
pub mod json;
pub mod json_fields;
pub mod layout;
pub mod limits;
mod model;
pub mod names;
pub mod node;
pub mod reads;
pub mod segments;
pub mod yaml;

#[cfg(test)]
mod boundary_tests;
