//! The skills compiled into skillhost (`providers/bundled/skills`): the
//! lowest-precedence source, granted nothing at all.

use crate::model::{Location, Scope};
use crate::provider::ProviderSpec;
use crate::sandbox::{LoadedComponent, VirtualRoot};
use std::sync::Arc;

/// The guest path the bundled provider's skills live under.
pub const ROOT: &str = "/bundled";
/// The bundled provider's id.
pub const ID: &str = "bundled";

/// The specification of the bundled provider: no files, no network.
pub fn spec(component: Arc<LoadedComponent>) -> ProviderSpec {
    ProviderSpec {
        virtual_roots: vec![VirtualRoot {
            guest: ROOT.to_string(),
            shown: Location::Bundled(String::new()),
        }],
        ..ProviderSpec::new(ID, Scope::Bundled, component)
    }
}
