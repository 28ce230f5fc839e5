//! What a provider tried and was refused (capabilities it was not granted),
//! kept so the catalog can say so.

use std::sync::{Arc, Mutex};

/// Most distinct refusals remembered per provider.
pub const MAX_REFUSALS: usize = 32;

/// Refusals of one provider, shared by all its instances: distinct
/// messages, at most [`MAX_REFUSALS`].
#[derive(Debug, Clone, Default)]
pub struct Refusals(Arc<Mutex<Vec<String>>>);

impl Refusals {
    /// Records a refusal (once per distinct message).
    pub fn record(&self, message: String) {
        let mut list = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if !list.contains(&message) && list.len() < MAX_REFUSALS {
            tracing::warn!(%message, "a provider was refused a capability");
            list.push(message);
        }
    }

    /// Everything recorded so far.
    pub fn list(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}
