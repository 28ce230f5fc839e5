use super::*;

#[test]
fn a_declared_manifest_is_cleaned_and_capped() {
    let declared = wit::ProviderManifest {
        summary: "Serves\u{202E} skills\nfrom files".to_string(),
        roots: wit::Need::Required,
        origins: (0..70).map(|i| format!("https://h{i}.example")).collect(),
        settings: vec![wit::SettingSpec {
            key: "index".to_string(),
            required: true,
            description: "x".repeat(2000),
        }],
    };
    let m = Manifest::from(declared);
    assert_eq!(m.summary, "Serves  skills from files");
    assert_eq!(m.roots, RootNeed::Required);
    assert_eq!(m.origins.len(), MAX_MANIFEST_ITEMS);
    assert_eq!(m.dropped, 70 - MAX_MANIFEST_ITEMS);
    assert_eq!(m.settings[0].description.len(), MAX_MANIFEST_TEXT);
    assert_eq!(m.to_json()["settings"][0]["key"], "index");
}
