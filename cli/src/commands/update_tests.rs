use super::*;

fn found(line: usize) -> Found {
    Found {
        line,
        reference: ComponentRef::parse(
            "oci://localhost:5000/acme/greeting:1@sha256:1111111111111111111111111111111111111111111111111111111111111111",
        )
        .unwrap(),
        sha256: "2".repeat(64),
        stored: PathBuf::from("/state/components/sha256/new.wasm"),
        component: Vec::new(),
    }
}

#[test]
fn repinning_rewrites_only_the_three_lines_of_its_own_table() {
    let text = "[[provider]]\nbuiltin = \"local\"\nroots = [\"a\"]\n\n\
                [[provider]]\nid = \"greeting\"\noci = \"oci://localhost:5000/acme/greeting:1@sha256:old\"\n\
                wasm = \"/state/components/sha256/old.wasm\"\nsha256 = \"old\"\norigins = [\"https://x:443\"]\n\n\
                [[provider]]\nid = \"other\"\nwasm = \"other.wasm\"\nsha256 = \"keep\"\n";
    let out = repin(text, &found(5)).unwrap();
    assert!(out.contains("oci = \"oci://localhost:5000/acme/greeting:1@sha256:1111"));
    assert!(out.contains("wasm = \"/state/components/sha256/new.wasm\""));
    assert!(out.contains(&format!("sha256 = \"{}\"", "2".repeat(64))));
    assert!(out.contains("origins = [\"https://x:443\"]"));
    assert!(
        out.contains("wasm = \"other.wasm\"\nsha256 = \"keep\""),
        "{out}"
    );
    assert_eq!(out.lines().count(), text.lines().count());
}

#[test]
fn a_table_without_its_three_lines_is_not_rewritten() {
    let text = "[[provider]]\nid = \"greeting\"\nwasm = \"x.wasm\"\nsha256 = \"old\"\n";
    assert!(repin(text, &found(1)).is_err());
}
