use super::*;

#[test]
fn skill_uris_name_a_folder_and_a_safe_path() {
    assert_eq!(skill_folder("skill://pdf/SKILL.md"), Some("pdf"));
    assert_eq!(skill_folder("skill://team/pdf/SKILL.md"), Some("team/pdf"));
    assert_eq!(
        resource_path("skill://pdf/references/a.md", "pdf"),
        Some("references/a.md")
    );
    assert_eq!(resource_path("skill://pdfx/a.md", "pdf"), None);
    for bad in [
        "skill://../SKILL.md",
        "skill://a/../SKILL.md",
        "http://a/SKILL.md",
        "skill://SKILL.md",
        "skill:///SKILL.md",
        "skill://a/b.md",
    ] {
        assert_eq!(skill_folder(bad), None, "{bad}");
    }
    assert_eq!(resource_path("skill://a/../b", "a"), None);
}

#[test]
fn a_documents_frontmatter_reads_as_json() {
    let json = json_of_document(
        b"---\nname: x\ndescription: d\nmetadata:\n  n: 1\n---\nbody\n",
        "x",
    )
    .unwrap();
    assert_eq!(
        json,
        serde_json::json!({"name": "x", "description": "d", "metadata": {"n": 1}})
    );
}
