//! A standard client, both ways: a component `skopeo` pushed is pulled by
//! skillhost, and one skillhost published is pulled and digest-checked by
//! `skopeo`.

use skillhost_oci::{CONFIG_MEDIA_TYPE, Credentials, Digest, LAYER_MEDIA_TYPE};
use skillhost_tests::registry::{LocalRegistry, component, runtime};
use std::path::Path;
use std::process::Command;

fn skopeo(args: &[&str]) -> String {
    let out = Command::new("skopeo")
        .args(args)
        .output()
        .expect("skopeo is installed (scripts/ensure-registry)");
    assert!(
        out.status.success(),
        "skopeo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn write_blob(layout: &Path, bytes: &[u8]) -> Digest {
    let digest = Digest::of(bytes);
    let dir = layout.join("blobs/sha256");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(digest.hex()), bytes).unwrap();
    digest
}

#[test]
fn a_component_skopeo_pushed_is_pulled_and_checked() {
    let registry = LocalRegistry::start();
    let dir = tempfile::tempdir().unwrap();
    let layout = dir.path().join("layout");
    let bytes = component(7, 4000);
    let layer = write_blob(&layout, &bytes);
    let config = br#"{"architecture":"wasm","os":"wasip2"}"#;
    let config_digest = write_blob(&layout, config);
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": CONFIG_MEDIA_TYPE, "digest": config_digest.to_string(), "size": config.len()},
        "layers": [{"mediaType": LAYER_MEDIA_TYPE, "digest": layer.to_string(), "size": bytes.len()}],
    })
    .to_string();
    let manifest_digest = write_blob(&layout, manifest.as_bytes());
    std::fs::write(
        layout.join("oci-layout"),
        br#"{"imageLayoutVersion":"1.0.0"}"#,
    )
    .unwrap();
    let index = serde_json::json!({
        "schemaVersion": 2,
        "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                       "digest": manifest_digest.to_string(), "size": manifest.len(),
                       "annotations": {"org.opencontainers.image.ref.name": "1"}}],
    });
    std::fs::write(layout.join("index.json"), index.to_string()).unwrap();
    skopeo(&[
        "copy",
        "--dest-tls-verify=false",
        &format!("oci:{}:1", layout.display()),
        &format!("docker://{}/acme/from-skopeo:1", registry.addr),
    ]);

    let reference = registry.reference("acme/from-skopeo:1");
    let pulled = runtime()
        .block_on(
            registry
                .client(&reference)
                .pull(&reference, &Credentials::Anonymous),
        )
        .unwrap();
    assert_eq!(pulled.component, bytes);
    assert_eq!(pulled.resolved.manifest.layer, layer);
}

#[test]
fn a_component_skillhost_published_is_pulled_and_digest_checked_by_skopeo() {
    let registry = LocalRegistry::start();
    let reference = registry.reference("acme/from-skillhost:1");
    let bytes = component(9, 6000);
    let pushed = runtime()
        .block_on(
            registry
                .client(&reference)
                .push(&bytes, &reference, &Credentials::Anonymous),
        )
        .unwrap();
    let source = format!("docker://{}/acme/from-skillhost:1", registry.addr);
    let raw = skopeo(&["inspect", "--raw", "--tls-verify=false", &source]);
    assert_eq!(
        Digest::of(raw.as_bytes()),
        pushed,
        "skopeo sees the manifest pushed"
    );
    let manifest: serde_json::Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(manifest["config"]["mediaType"], CONFIG_MEDIA_TYPE);
    assert_eq!(manifest["layers"][0]["mediaType"], LAYER_MEDIA_TYPE);

    // skopeo copies every blob out, checking each digest as it goes.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pulled");
    skopeo(&[
        "copy",
        "--src-tls-verify=false",
        &source,
        &format!("oci:{}:1", out.display()),
    ]);
    let layer = std::fs::read(out.join("blobs/sha256").join(Digest::of(&bytes).hex())).unwrap();
    assert_eq!(layer, bytes);
}
