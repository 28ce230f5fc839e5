//! The Wasm OCI artifact layout (wasm-pkg-tools, the CNCF TAG Runtime
//! "Wasm OCI Artifact" note): an OCI image manifest whose config has the
//! media type `application/vnd.wasm.config.v0+json` and which has exactly
//! one layer, `application/wasm`, the component itself. Anything else —
//! an image index, a container image, several layers — is refused, named.

use crate::digest::Digest;
use serde::Deserialize;

/// The config media type of a Wasm artifact.
pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
/// The media type of its one layer.
pub const LAYER_MEDIA_TYPE: &str = "application/wasm";
/// The manifest media type pushed and asked for.
pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// Largest manifest read: a one-layer manifest is well under a kilobyte,
/// and the OCI distribution spec lets registries refuse over 4 MiB.
pub const MAX_MANIFEST_BYTES: usize = 64 * 1024;

/// Manifest types that list other manifests rather than layers.
const INDEX_MEDIA_TYPES: [&str; 2] = [
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
];

/// What a Wasm artifact's manifest says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WasmManifest {
    /// The digest of the config blob.
    pub config: Digest,
    /// The size of the config blob.
    pub config_size: u64,
    /// The digest of the component.
    pub layer: Digest,
    /// The size of the component, as the manifest states it.
    pub layer_size: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest {
    media_type: Option<String>,
    config: Option<Descriptor>,
    #[serde(default)]
    layers: Vec<Descriptor>,
    #[serde(default)]
    manifests: Option<Vec<serde_json::Value>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor {
    media_type: String,
    digest: String,
    size: u64,
}

impl WasmManifest {
    /// Reads a manifest (its raw bytes, and the media type the registry
    /// sent it under); the error says what it is instead.
    pub fn parse(raw: &[u8], content_type: &str) -> Result<WasmManifest, String> {
        if INDEX_MEDIA_TYPES.contains(&content_type) {
            return Err(format!(
                "it is an image index ({content_type}), not a Wasm component artifact"
            ));
        }
        let manifest: Manifest = serde_json::from_slice(raw)
            .map_err(|e| format!("the manifest is not an OCI image manifest: {e}"))?;
        if manifest.manifests.is_some()
            || manifest
                .media_type
                .as_deref()
                .is_some_and(|t| INDEX_MEDIA_TYPES.contains(&t))
        {
            return Err("it is an image index, not a Wasm component artifact".to_string());
        }
        let config = manifest
            .config
            .ok_or("the manifest has no config, so it is not a Wasm component artifact")?;
        if config.media_type != CONFIG_MEDIA_TYPE {
            return Err(format!(
                "its config is {:?}, not {CONFIG_MEDIA_TYPE:?}: not a Wasm component artifact",
                clip(&config.media_type)
            ));
        }
        let [layer] = manifest.layers.as_slice() else {
            return Err(format!(
                "it has {} layers; a Wasm component artifact has exactly one",
                manifest.layers.len()
            ));
        };
        if layer.media_type != LAYER_MEDIA_TYPE {
            return Err(format!(
                "its layer is {:?}, not {LAYER_MEDIA_TYPE:?}",
                clip(&layer.media_type)
            ));
        }
        let digest = |d: &str| {
            Digest::parse(d).ok_or_else(|| format!("the digest {:?} is not sha256", clip(d)))
        };
        Ok(WasmManifest {
            config: digest(&config.digest)?,
            config_size: config.size,
            layer: digest(&layer.digest)?,
            layer_size: layer.size,
        })
    }
}

/// The config blob and manifest this project pushes for `component`:
/// deterministic, so the same file always gives the same manifest digest.
pub(crate) fn artifact(component: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let layer = Digest::of(component);
    let config = serde_json::to_vec(&serde_json::json!({
        "architecture": "wasm",
        "os": "wasip2",
        "layerDigests": [layer.to_string()],
    }))
    .unwrap_or_default();
    let manifest = serde_json::to_vec(&serde_json::json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST_MEDIA_TYPE,
        "artifactType": CONFIG_MEDIA_TYPE,
        "config": {
            "mediaType": CONFIG_MEDIA_TYPE,
            "digest": Digest::of(&config).to_string(),
            "size": config.len(),
        },
        "layers": [{
            "mediaType": LAYER_MEDIA_TYPE,
            "digest": layer.to_string(),
            "size": component.len(),
        }],
    }))
    .unwrap_or_default();
    (config, manifest)
}

/// A registry's text cut short for an error message.
fn clip(text: &str) -> String {
    text.chars().take(100).filter(|c| !c.is_control()).collect()
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;
