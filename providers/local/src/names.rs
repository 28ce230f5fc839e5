//! The names this provider serves, kept unique: the host loads a skill by
//! its name, so two skills under one name would leave one of them
//! unreachable.
//!
//! Two documents may declare one name (a folder copied from another and
//! not renamed). The skill that holds the name first keeps it: on a first
//! scan the first in root order, then by entry name; after that, a name
//! already served never moves to another skill behind the model's back.
//! The other is served under its folder's (or flat file's) name, keeps the
//! declared one as the text people read, and is reported with the skill
//! holding the name (`Catalog::diagnostics`). When the holder goes, or
//! changes its name, the renamed skill is read again and takes the name it
//! declares. When its folder's name is taken too, or is no identifier, it
//! keeps the declared name and the host reports the duplicate.

use skillhost_guest_sdk::skill::names::is_identifier;
use std::collections::HashMap;

/// The name a skill is served under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The name it is served under.
    pub name: String,
    /// The name it declares, when another skill holds it and it is served
    /// under its folder's name instead.
    pub declared: Option<String>,
}

/// How many skills serve each name.
#[derive(Debug, Default)]
pub struct Names {
    held: HashMap<String, u32>,
    /// Skills served under their folder's name instead of the declared one.
    renamed: usize,
    /// Some name was given up while a skill was renamed: it may take its
    /// declared name now.
    released: bool,
}

impl Names {
    /// Takes a name for a skill that declares `declared` (already a safe
    /// name) and lives in the entry named `folder`.
    pub fn claim(&mut self, declared: String, folder: &str) -> Claim {
        let fallback = self.is_held(&declared)
            && folder != declared
            && is_identifier(folder)
            && !self.is_held(folder);
        let claim = if fallback {
            self.renamed += 1;
            Claim {
                name: folder.to_string(),
                declared: Some(declared),
            }
        } else {
            Claim {
                name: declared,
                declared: None,
            }
        };
        match self.held.get_mut(&claim.name) {
            Some(count) => *count += 1,
            None => {
                self.held.insert(claim.name.clone(), 1);
            }
        }
        claim
    }

    /// Gives up `name`, taken by [`Names::claim`] (`renamed`: in place of
    /// a declared one).
    pub fn release(&mut self, name: &str, renamed: bool) {
        if let Some(count) = self.held.get_mut(name) {
            *count -= 1;
            if *count == 0 {
                self.held.remove(name);
                self.released |= self.renamed > 0;
            }
        }
        if renamed {
            self.renamed = self.renamed.saturating_sub(1);
        }
    }

    /// Whether some skill serves `name`.
    pub fn is_held(&self, name: &str) -> bool {
        self.held.contains_key(name)
    }

    /// Whether some skill is served under its folder's name.
    pub fn any_renamed(&self) -> bool {
        self.renamed > 0
    }

    /// Whether a renamed skill may take its declared name now (a name was
    /// given up since the last call).
    pub fn take_released(&mut self) -> bool {
        std::mem::take(&mut self.released)
    }
}

#[cfg(test)]
#[path = "names_tests.rs"]
mod tests;
