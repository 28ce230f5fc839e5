use super::*;

#[test]
fn the_artifact_pushed_reads_back_as_a_wasm_manifest() {
    let (config, manifest) = artifact(b"\0asm component bytes");
    let read = WasmManifest::parse(&manifest, MANIFEST_MEDIA_TYPE).unwrap();
    assert_eq!(read.layer, Digest::of(b"\0asm component bytes"));
    assert_eq!(read.layer_size, 20);
    assert_eq!(read.config, Digest::of(&config));
    assert_eq!(
        artifact(b"\0asm component bytes").1,
        manifest,
        "deterministic"
    );
}

#[test]
fn indexes_container_images_and_many_layers_are_refused_by_name() {
    let index = br#"{"schemaVersion":2,"manifests":[]}"#;
    let e = WasmManifest::parse(index, MANIFEST_MEDIA_TYPE).unwrap_err();
    assert!(e.contains("image index"), "{e}");
    let e = WasmManifest::parse(b"{}", "application/vnd.oci.image.index.v1+json").unwrap_err();
    assert!(e.contains("image index"), "{e}");

    let image = br#"{"schemaVersion":2,"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:x","size":1},"layers":[]}"#;
    let e = WasmManifest::parse(image, MANIFEST_MEDIA_TYPE).unwrap_err();
    assert!(
        e.contains("not \"application/vnd.wasm.config.v0+json\""),
        "{e}"
    );

    let d = Digest::of(b"x").to_string();
    let two = format!(
        r#"{{"config":{{"mediaType":"{CONFIG_MEDIA_TYPE}","digest":"{d}","size":1}},"layers":[{{"mediaType":"application/wasm","digest":"{d}","size":1}},{{"mediaType":"application/wasm","digest":"{d}","size":1}}]}}"#
    );
    let e = WasmManifest::parse(two.as_bytes(), MANIFEST_MEDIA_TYPE).unwrap_err();
    assert!(e.contains("2 layers"), "{e}");

    let tar = two.replacen(
        "application/wasm",
        "application/vnd.oci.image.layer.v1.tar",
        2,
    );
    let one_tar = tar.replacen(
        &format!(
            r#",{{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"{d}","size":1}}"#
        ),
        "",
        1,
    );
    let e = WasmManifest::parse(one_tar.as_bytes(), MANIFEST_MEDIA_TYPE).unwrap_err();
    assert!(e.contains("its layer is"), "{e}");
    assert!(WasmManifest::parse(b"not json", MANIFEST_MEDIA_TYPE).is_err());
}
