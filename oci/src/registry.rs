//! Talking to a registry: resolving a reference to its manifest, pulling
//! the component, pushing one. Every operation ends at the deadline, every
//! size is capped before and while bytes arrive, and every digest is
//! computed here from the bytes received.

use crate::auth::Credentials;
use crate::digest::Digest;
use crate::error::Error;
use crate::layout::{self, MANIFEST_MEDIA_TYPE, MAX_MANIFEST_BYTES, WasmManifest};
use crate::reference::ComponentRef;
use futures_util::StreamExt as _;
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::errors::OciDistributionError;
use std::future::Future;
use std::time::Duration;

/// How a registry is reached.
#[derive(Debug, Clone)]
pub struct Options {
    /// Plain HTTP (only for a registry on loopback, as `oras --plain-http`).
    pub plain_http: bool,
    /// Each operation (resolve, pull, push) ends by then.
    pub deadline: Duration,
    /// Largest component pulled, in bytes.
    pub max_component_bytes: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            plain_http: false,
            deadline: Duration::from_secs(60),
            // The CPython example is about 19 MB.
            max_component_bytes: 64 * 1024 * 1024,
        }
    }
}

/// A reference resolved to the manifest it names now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The manifest's digest, computed from its bytes.
    pub digest: Digest,
    /// What the manifest says.
    pub manifest: WasmManifest,
}

/// A pulled component.
#[derive(Debug, Clone)]
pub struct Pulled {
    /// The manifest it was pulled by.
    pub resolved: Resolved,
    /// The component's bytes, checked against the layer digest.
    pub component: Vec<u8>,
}

/// A client for the registry of one reference.
pub struct Registry {
    client: oci_client::Client,
    options: Options,
}

impl Registry {
    /// A client for `reference`'s registry. Plain HTTP is refused unless
    /// the registry is on loopback.
    pub fn new(reference: &ComponentRef, options: Options) -> Result<Registry, Error> {
        if options.plain_http && !reference.is_loopback() {
            return Err(Error::PlainHttp {
                reference: reference.to_string(),
            });
        }
        // reqwest is built without a rustls crypto provider (see Cargo.toml):
        // ring becomes the process default unless one is set already.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let protocol = if options.plain_http {
            ClientProtocol::HttpsExcept(vec![reference.registry.clone()])
        } else {
            ClientProtocol::Https
        };
        let config = ClientConfig {
            protocol,
            // An index is refused, never resolved to some platform's entry.
            platform_resolver: None,
            connect_timeout: Some(options.deadline.min(Duration::from_secs(10))),
            read_timeout: Some(options.deadline),
            user_agent: concat!("skillhost/", env!("CARGO_PKG_VERSION")),
            ..ClientConfig::default()
        };
        Ok(Registry {
            client: oci_client::Client::new(config),
            options,
        })
    }

    /// The manifest `reference` names now (its tag resolved), checked to
    /// be a Wasm component artifact, and against the reference's digest
    /// when it has one.
    pub async fn resolve(
        &self,
        reference: &ComponentRef,
        credentials: &Credentials,
    ) -> Result<Resolved, Error> {
        self.bounded(reference, self.resolve_now(reference, credentials))
            .await
    }

    async fn resolve_now(
        &self,
        reference: &ComponentRef,
        credentials: &Credentials,
    ) -> Result<Resolved, Error> {
        let accepted = [
            MANIFEST_MEDIA_TYPE,
            "application/vnd.oci.image.index.v1+json",
            "application/vnd.docker.distribution.manifest.list.v2+json",
        ];
        let (raw, _) = self
            .client
            .pull_manifest_raw(&reference.to_oci(), &credentials.to_oci(), &accepted)
            .await
            .map_err(|e| registry_error(reference, e))?;
        if raw.len() > MAX_MANIFEST_BYTES {
            return Err(Error::TooLarge {
                reference: reference.to_string(),
                what: "manifest",
                cap: MAX_MANIFEST_BYTES as u64,
            });
        }
        let digest = Digest::of(&raw);
        if let Some(expected) = &reference.digest
            && *expected != digest
        {
            return Err(Error::DigestMismatch {
                reference: reference.to_string(),
                what: "manifest",
                expected: expected.to_string(),
                actual: digest.to_string(),
            });
        }
        let content_type = serde_json::from_slice::<serde_json::Value>(&raw)
            .ok()
            .and_then(|v| v.get("mediaType")?.as_str().map(str::to_string))
            .unwrap_or_else(|| MANIFEST_MEDIA_TYPE.to_string());
        let manifest =
            WasmManifest::parse(&raw, &content_type).map_err(|reason| Error::Layout {
                reference: reference.to_string(),
                reason,
            })?;
        Ok(Resolved { digest, manifest })
    }

    /// Resolves `reference` and pulls its component, within the size cap,
    /// checked against the layer digest.
    pub async fn pull(
        &self,
        reference: &ComponentRef,
        credentials: &Credentials,
    ) -> Result<Pulled, Error> {
        self.bounded(reference, async {
            let resolved = self.resolve_now(reference, credentials).await?;
            let component = self.pull_layer(reference, &resolved.manifest).await?;
            Ok(Pulled {
                resolved,
                component,
            })
        })
        .await
    }

    async fn pull_layer(
        &self,
        reference: &ComponentRef,
        manifest: &WasmManifest,
    ) -> Result<Vec<u8>, Error> {
        let cap = self.options.max_component_bytes;
        let too_large = || Error::TooLarge {
            reference: reference.to_string(),
            what: "layer",
            cap,
        };
        if manifest.layer_size > cap {
            return Err(too_large());
        }
        let layer = manifest.layer.to_string();
        let mut stream = self
            .client
            .pull_blob_stream(&reference.to_oci(), layer.as_str())
            .await
            .map_err(|e| registry_error(reference, e))?;
        if stream.content_length.is_some_and(|n| n > cap) {
            return Err(too_large());
        }
        // The manifest's size bounds what is read, as the cap does.
        let limit = manifest.layer_size.min(cap);
        let mut bytes = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| Error::Registry {
                reference: reference.to_string(),
                reason: format!("the layer download failed: {}", with_causes(&e)),
            })?;
            if bytes.len() as u64 + chunk.len() as u64 > limit {
                return Err(if limit == cap {
                    too_large()
                } else {
                    Error::Layout {
                        reference: reference.to_string(),
                        reason: format!(
                            "the layer is larger than the {} bytes its manifest states",
                            manifest.layer_size
                        ),
                    }
                });
            }
            bytes.extend_from_slice(&chunk);
        }
        let actual = Digest::of(&bytes);
        if actual != manifest.layer {
            return Err(Error::DigestMismatch {
                reference: reference.to_string(),
                what: "layer",
                expected: manifest.layer.to_string(),
                actual: actual.to_string(),
            });
        }
        Ok(bytes)
    }

    /// Pushes `component` to `reference` (which names a tag) in the Wasm
    /// artifact layout; returns the manifest's digest.
    pub async fn push(
        &self,
        component: &[u8],
        reference: &ComponentRef,
        credentials: &Credentials,
    ) -> Result<Digest, Error> {
        self.bounded(reference, async {
            let image = reference.to_oci();
            self.client
                .store_auth_if_needed(image.resolve_registry(), &credentials.to_oci())
                .await;
            let (config, manifest) = layout::artifact(component);
            let push = |data: Vec<u8>, digest: Digest| {
                let image = &image;
                async move {
                    self.client
                        .push_blob(image, data, &digest.to_string())
                        .await
                        .map_err(|e| registry_error(reference, e))
                }
            };
            push(component.to_vec(), Digest::of(component)).await?;
            let config_digest = Digest::of(&config);
            push(config, config_digest).await?;
            let digest = Digest::of(&manifest);
            self.client
                .push_manifest_raw(
                    &image,
                    manifest,
                    http::HeaderValue::from_static(MANIFEST_MEDIA_TYPE),
                )
                .await
                .map_err(|e| registry_error(reference, e))?;
            Ok(digest)
        })
        .await
    }

    async fn bounded<T>(
        &self,
        reference: &ComponentRef,
        work: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        tokio::time::timeout(self.options.deadline, work)
            .await
            .unwrap_or_else(|_| {
                Err(Error::Deadline {
                    reference: reference.to_string(),
                    seconds: self.options.deadline.as_secs(),
                })
            })
    }
}

/// `e` and what caused it, as one line of at most 300 characters: a
/// request that never reached the registry says why ("Connection refused")
/// only in its sources.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text.chars().take(300).collect()
}

/// The registry's answer as an error of this crate, with the reference.
fn registry_error(reference: &ComponentRef, e: OciDistributionError) -> Error {
    let reference = reference.to_string();
    match e {
        OciDistributionError::AuthenticationFailure(_)
        | OciDistributionError::UnauthorizedError { .. } => Error::Unauthorized { reference },
        OciDistributionError::ImageManifestNotFoundError(_) => Error::NotFound { reference },
        OciDistributionError::ServerError { code: 404, .. } => Error::NotFound { reference },
        other => {
            let reason = with_causes(&other);
            let words = reason.to_lowercase();
            if words.contains("unauthorized") || words.contains("denied") {
                return Error::Unauthorized { reference };
            }
            // The distribution spec's MANIFEST_UNKNOWN and NAME_UNKNOWN,
            // however the envelope spells them.
            let unknown = ["manifest", "name"].iter().any(|what| {
                [" unknown", "_unknown", "unknown"]
                    .iter()
                    .any(|tail| words.contains(&format!("{what}{tail}")))
            });
            if unknown {
                return Error::NotFound { reference };
            }
            Error::Registry { reference, reason }
        }
    }
}
