//! Answers no honest registry gives: a foreign manifest, an index, a 500,
//! silence, a layer whose bytes are not its digest, a giant manifest. Each
//! is refused with the reference and the reason.

use skillhost_oci::{CONFIG_MEDIA_TYPE, Credentials, Digest, Error, Options, Registry};
use skillhost_tests::registry::{LocalRegistry, component, plain, runtime};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// Pushes `manifest` (of `media_type`) to the real registry at `tag`, the
/// way any other tool could.
fn push_raw(
    registry: &LocalRegistry,
    tag: &str,
    blobs: &[&[u8]],
    manifest: &[u8],
    media_type: &'static str,
) {
    let rt = runtime();
    // reqwest is built without a crypto provider: a test that pushes
    // before any skillhost client ran in its process would find none.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = oci_client::Client::new(oci_client::client::ClientConfig {
        protocol: oci_client::client::ClientProtocol::Http,
        ..Default::default()
    });
    let image: oci_client::Reference = format!("{}/{tag}", registry.addr).parse().unwrap();
    rt.block_on(async {
        for blob in blobs {
            client
                .push_blob(&image, blob.to_vec(), &Digest::of(blob).to_string())
                .await
                .unwrap();
        }
        client
            .push_manifest_raw(
                &image,
                manifest.to_vec(),
                http::HeaderValue::from_static(media_type),
            )
            .await
            .unwrap();
    });
}

#[test]
fn a_container_image_and_an_image_index_are_refused_by_name() {
    let registry = LocalRegistry::start();
    let layer = component(1, 100);
    let config = br#"{"architecture":"amd64","os":"linux"}"#;
    let image = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                   "digest": Digest::of(config).to_string(), "size": config.len()},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
                    "digest": Digest::of(&layer).to_string(), "size": layer.len()}],
    })
    .to_string();
    push_raw(
        &registry,
        "acme/image:1",
        &[&layer, config],
        image.as_bytes(),
        "application/vnd.oci.image.manifest.v1+json",
    );
    let index = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                       "digest": Digest::of(image.as_bytes()).to_string(), "size": image.len()}],
    })
    .to_string();
    push_raw(
        &registry,
        "acme/image:index",
        &[],
        index.as_bytes(),
        "application/vnd.oci.image.index.v1+json",
    );

    let rt = runtime();
    for (tag, why) in [
        (
            "acme/image:1",
            "not \"application/vnd.wasm.config.v0+json\"",
        ),
        ("acme/image:index", "image index"),
    ] {
        let reference = registry.reference(tag);
        let e = rt
            .block_on(
                registry
                    .client(&reference)
                    .pull(&reference, &Credentials::Anonymous),
            )
            .unwrap_err();
        assert!(matches!(e, Error::Layout { .. }), "{tag}: {e}");
        assert!(
            e.to_string().contains(why) && e.to_string().contains(tag),
            "{tag}: {e}"
        );
    }
}

/// What the test server answers: a status, headers and a body.
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

fn reply(status: u16, content_type: &str, body: Vec<u8>) -> Reply {
    Reply {
        status,
        headers: vec![("Content-Type", content_type.to_string())],
        body,
    }
}

/// How the test server answers a request, given its path and its whole
/// head (to see which headers the client sent); `None` for no answer.
type Answer = Arc<dyn Fn(&str, &str) -> Option<Reply> + Send + Sync>;

/// A server on loopback answering every request with `answer(path, head)`
/// (`None`: read the request and never answer).
async fn serve(answer: Answer) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&request).into_owned();
                let path = head
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_string();
                let Some(reply) = answer(&path, &head) else {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    return;
                };
                let mut text = format!("HTTP/1.1 {} X\r\n", reply.status);
                for (name, value) in &reply.headers {
                    text.push_str(&format!("{name}: {value}\r\n"));
                }
                text.push_str(&format!(
                    "Content-Length: {}\r\nConnection: close\r\n\r\n",
                    reply.body.len()
                ));
                let _ = socket.write_all(text.as_bytes()).await;
                let _ = socket.write_all(&reply.body).await;
            });
        }
    });
    addr
}

fn wasm_manifest(layer_digest: &Digest, layer_size: usize) -> Vec<u8> {
    let config = b"{}";
    serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": CONFIG_MEDIA_TYPE, "digest": Digest::of(config).to_string(), "size": 2},
        "layers": [{"mediaType": "application/wasm", "digest": layer_digest.to_string(), "size": layer_size}],
    })
    .to_string()
    .into_bytes()
}

/// A status, a content type and a body.
type Simple = (u16, String, Vec<u8>);

/// Pulls from a server answering each path with `answer` and checks the
/// error `expect`s, and that it names the reference.
fn check(answer: fn(&str) -> Option<Simple>, deadline: Duration, expect: fn(&Error) -> bool) {
    let answer: Answer = Arc::new(move |path: &str, _: &str| {
        answer(path).map(|(status, content_type, body)| reply(status, &content_type, body))
    });
    let e = runtime().block_on(pull_error(answer, "acme/hostile:1", deadline));
    assert!(expect(&e), "{e:?}");
}

/// What an anonymous pull of `oci://SERVER/path` answers, from a server
/// answering with `answer`; the error must name the reference.
async fn pull_error(answer: Answer, path: &str, deadline: Duration) -> Error {
    let addr = serve(answer).await;
    let reference = skillhost_oci::ComponentRef::parse(&format!("oci://{addr}/{path}")).unwrap();
    let client = Registry::new(
        &reference,
        Options {
            deadline,
            ..plain()
        },
    )
    .unwrap();
    let e = client
        .pull(&reference, &Credentials::Anonymous)
        .await
        .unwrap_err();
    assert!(e.to_string().contains(path), "{e}");
    e
}

#[test]
fn a_registry_answering_500_is_named_with_its_answer() {
    check(
        |_| Some((500, "text/plain".into(), b"internal error".to_vec())),
        Duration::from_secs(20),
        |e| matches!(e, Error::Registry { reason, .. } if reason.contains("500")),
    );
}

#[test]
fn a_registry_that_never_answers_is_given_up_at_the_deadline() {
    check(
        |_| None,
        Duration::from_secs(2),
        |e| matches!(e, Error::Deadline { .. } | Error::Registry { .. }),
    );
}

#[test]
fn a_layer_whose_bytes_are_not_its_digest_is_refused() {
    check(
        |path| {
            let claimed = component(1, 64);
            Some(if path.contains("/manifests/") {
                (
                    200,
                    "application/vnd.oci.image.manifest.v1+json".into(),
                    wasm_manifest(&Digest::of(&claimed), claimed.len()),
                )
            } else {
                // Same size, other bytes.
                (200, "application/octet-stream".into(), component(2, 64))
            })
        },
        Duration::from_secs(20),
        |e| {
            matches!(
                e,
                Error::DigestMismatch { what: "layer", .. } | Error::Registry { .. }
            )
        },
    );
}

#[test]
fn a_layer_longer_than_its_manifest_says_is_cut_off() {
    check(
        |path| {
            let claimed = component(1, 64);
            Some(if path.contains("/manifests/") {
                (
                    200,
                    "application/vnd.oci.image.manifest.v1+json".into(),
                    wasm_manifest(&Digest::of(&claimed), claimed.len()),
                )
            } else {
                (
                    200,
                    "application/octet-stream".into(),
                    component(1, 10_000_000),
                )
            })
        },
        Duration::from_secs(20),
        |e| matches!(e, Error::Layout { reason, .. } if reason.contains("larger than")),
    );
}

#[test]
fn a_giant_manifest_is_refused() {
    check(
        |_| {
            let mut body = b"{\"schemaVersion\":2,\"pad\":\"".to_vec();
            body.extend(std::iter::repeat_n(b'x', 200_000));
            body.extend_from_slice(b"\"}");
            Some((
                200,
                "application/vnd.oci.image.manifest.v1+json".into(),
                body,
            ))
        },
        Duration::from_secs(20),
        |e| {
            matches!(
                e,
                Error::TooLarge {
                    what: "manifest",
                    ..
                }
            )
        },
    );
}

fn manifest_reply(layer: &[u8]) -> Reply {
    reply(
        200,
        "application/vnd.oci.image.manifest.v1+json",
        wasm_manifest(&Digest::of(layer), layer.len()),
    )
}

fn redirect(to: String) -> Reply {
    Reply {
        status: 307,
        headers: vec![("Location", to)],
        body: Vec::new(),
    }
}

#[test]
fn a_redirect_to_another_host_is_followed_without_the_registry_token() {
    let rt = runtime();
    let layer = component(1, 300);
    rt.block_on(async {
        // The blob store a registry redirects to (as Docker Hub and GHCR
        // do): it refuses any request carrying the registry's credentials.
        let store_layer = layer.clone();
        let store = serve(Arc::new(move |path: &str, head: &str| {
            let leaked = head.to_ascii_lowercase().contains("\r\nauthorization:");
            Some(match () {
                _ if leaked => reply(
                    403,
                    "text/plain",
                    b"credentials sent to the wrong host".to_vec(),
                ),
                _ if path.ends_with(&Digest::of(&store_layer).to_string()) => {
                    reply(200, "application/octet-stream", store_layer.clone())
                }
                _ => reply(200, "application/octet-stream", b"{}".to_vec()),
            })
        }))
        .await;
        let manifest_layer = layer.clone();
        let authorized = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = authorized.clone();
        let addr = serve(Arc::new(move |path: &str, head: &str| {
            if head.contains("Bearer registry-secret") {
                seen.store(true, std::sync::atomic::Ordering::SeqCst);
            }
            Some(if path.contains("/manifests/") {
                manifest_reply(&manifest_layer)
            } else if path.contains("/blobs/") {
                redirect(format!("http://{store}{path}"))
            } else {
                reply(200, "application/json", b"{}".to_vec())
            })
        }))
        .await;
        let reference =
            skillhost_oci::ComponentRef::parse(&format!("oci://{addr}/acme/redirected:1")).unwrap();
        let client = Registry::new(&reference, plain()).unwrap();
        let pulled = client
            .pull(&reference, &Credentials::Bearer("registry-secret".into()))
            .await
            .unwrap();
        assert_eq!(pulled.component, layer);
        assert!(
            authorized.load(std::sync::atomic::Ordering::SeqCst),
            "the registry itself was sent the token"
        );
    });
}

#[test]
fn a_redirect_loop_is_given_up_naming_the_reference() {
    let layer = component(1, 300);
    let answer: Answer = Arc::new(move |path: &str, _: &str| {
        Some(if path.contains("/manifests/") {
            manifest_reply(&layer)
        } else {
            // Every blob request is sent back to itself.
            redirect(path.to_string())
        })
    });
    let e = runtime().block_on(pull_error(
        answer,
        "acme/looping:1",
        Duration::from_secs(20),
    ));
    assert!(matches!(e, Error::Registry { .. }), "{e:?}");
}
