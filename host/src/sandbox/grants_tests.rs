//! The path algebra, on grants written out by hand.

use super::*;

fn grants() -> Grants {
    Grants {
        roots: vec![
            GrantedRoot {
                guest: "/skills/0".into(),
                host: "/home/u/proj/.agents/skills".into(),
                present: true,
            },
            GrantedRoot {
                guest: "/skills/1".into(),
                host: "/home/u/missing".into(),
                present: false,
            },
        ],
        mounts: vec![
            Mount {
                guest: "/skills/0".into(),
                host: "/home/u/proj/.agents/skills".into(),
            },
            Mount {
                guest: "/skills/0/linked".into(),
                host: "/opt/shared/linked".into(),
            },
        ],
        virtual_roots: vec![VirtualRoot {
            guest: "/remote".into(),
            shown: Location::Url("https://skills.example.com/team".into()),
        }],
        origins: Vec::new(),
        refused_links: Vec::new(),
        namespace: Some("team".into()),
    }
}

#[test]
fn relative_paths_name_the_providers_namespace_never_a_host_file() {
    let g = grants();
    assert_eq!(
        g.locate("greeting/SKILL.md"),
        Some(Location::Provided {
            provider: "team".into(),
            path: "greeting/SKILL.md".into()
        })
    );
    assert_eq!(g.to_host("greeting/SKILL.md"), None);
    assert!(!g.may_watch("greeting"));
    for bad in ["../x", "a//b", "a/./b", "a\\b", ""] {
        assert_eq!(g.locate(bad), None, "{bad:?}");
    }
    // Without a namespace (a grant made by hand), relative paths name nothing.
    let none = Grants {
        namespace: None,
        ..grants()
    };
    assert_eq!(none.locate("greeting/SKILL.md"), None);
}

#[test]
fn virtual_roots_translate_but_are_never_watched() {
    let g = grants();
    assert_eq!(
        g.locate("/remote/pdf/SKILL.md"),
        Some(Location::Url(
            "https://skills.example.com/team/pdf/SKILL.md".into()
        ))
    );
    assert_eq!(
        g.to_host("/remote/pdf/SKILL.md"),
        None,
        "a URL is not a host path"
    );
    assert!(!g.may_watch("/remote"));
    assert!(!g.may_watch("/remote/pdf"));
    assert_eq!(g.locate("/remote/../etc/passwd"), None);
}

#[test]
fn maps_guest_paths_through_the_deepest_mount() {
    let g = grants();
    assert_eq!(
        g.to_host("/skills/0/pdf/SKILL.md"),
        Some("/home/u/proj/.agents/skills/pdf/SKILL.md".into())
    );
    assert_eq!(
        g.to_host("/skills/0/linked/SKILL.md"),
        Some("/opt/shared/linked/SKILL.md".into())
    );
    assert_eq!(g.to_host("/skills/1/x"), Some("/home/u/missing/x".into()));
    assert_eq!(
        g.to_host("/skills/0"),
        Some("/home/u/proj/.agents/skills".into())
    );
    assert_eq!(
        g.locate("/skills/0/pdf"),
        Some(Location::Path("/home/u/proj/.agents/skills/pdf".into()))
    );
}

#[test]
fn refuses_paths_outside_or_not_normalised() {
    let g = grants();
    for bad in [
        "/etc/passwd",
        "/skills/0/../../etc",
        "/skills/2/x",
        "skills/0/x",
        "/skills/0//x",
        "/skills/01/x",
    ] {
        assert_eq!(g.to_host(bad), None, "{bad}");
        assert!(!g.may_watch(bad), "{bad}");
    }
    assert!(g.may_watch("/skills/1"));
    assert!(g.may_watch("/skills/0/pdf"));
}

#[test]
fn maps_host_paths_back() {
    let g = grants();
    assert_eq!(
        g.to_guest(Path::new("/opt/shared/linked/SKILL.md")),
        Some("/skills/0/linked/SKILL.md".into())
    );
    assert_eq!(g.to_guest(Path::new("/elsewhere")), None);
}

#[test]
fn links_to_the_filesystem_home_root_or_ancestors_are_not_mounted() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("project/skills");
    let shared = base.join("shared/pdf");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&shared).unwrap();
    for (name, target) in [
        ("slash", Path::new("/").to_path_buf()),
        ("itself", root.clone()),
        ("parent", base.join("project")),
        ("pdf", shared.clone()),
    ] {
        std::os::unix::fs::symlink(&target, root.join(name)).unwrap();
    }
    let grants = Grants::for_roots(std::slice::from_ref(&root));
    let mounted: Vec<&str> = grants.mounts.iter().map(|m| m.guest.as_str()).collect();
    assert_eq!(mounted, ["/skills/0", "/skills/0/pdf"]);
    let refused: Vec<String> = grants
        .refused_links
        .iter()
        .map(|r| r.link.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(refused, ["itself", "parent", "slash"]);
    assert!(
        grants
            .refused_links
            .iter()
            .all(|r| r.reason.contains("points at"))
    );
}
