use super::*;

fn watch(depth: u32) -> Watch {
    Watch {
        guest: "/skills/0".to_string(),
        host: "/srv/skills".into(),
        depth,
    }
}

#[test]
fn a_watch_covers_its_folder_and_entries_down_to_one_below_its_depth() {
    let w = watch(1);
    for covered in ["/srv/skills", "/srv/skills/a", "/srv/skills/a/SKILL.md"] {
        assert!(w.covers(Path::new(covered)), "{covered}");
    }
    for outside in [
        "/srv/skills/a/b/SKILL.md",
        "/srv/other/a",
        "/srv/skillsx/a",
        "/srv",
    ] {
        assert!(!w.covers(Path::new(outside)), "{outside}");
    }
    assert!(watch(0).covers(Path::new("/srv/skills/flat.md")));
    assert!(!watch(0).covers(Path::new("/srv/skills/a/SKILL.md")));
}
