use super::*;
use crate::sandbox::bindings::latest::files::{FsError, Stamp};
use skillhost_skill::frontmatter::parse_document;

fn cut(doc: &[u8]) -> &[u8] {
    &doc[..head_len(doc)]
}

#[test]
fn a_document_is_cut_after_its_closing_fence() {
    let doc = b"---\nname: a\ndescription: d\n---  \r\n# Body\n\nlots of text\n";
    assert_eq!(cut(doc), b"---\nname: a\ndescription: d\n---  \r\n");
    let bom = b"\xEF\xBB\xBF---\nname: a\n---\nbody";
    assert_eq!(cut(bom), b"\xEF\xBB\xBF---\nname: a\n---\n");
}

#[test]
fn the_head_parses_as_the_whole_document_does() {
    let docs: [&[u8]; 6] = [
        b"---\nname: a\ndescription: d\nmetadata:\n  k: v\n---\nbody\n",
        b"---\ndescription: [unclosed\n---\nbody\n",
        b"---\nname: Bad Name\n---\nbody\n",
        b"---\ndescription: d\n---",
        b"---\n---\n\n",
        b"---\ndescription: d\n---\n--- not a fence\nmore\n",
    ];
    for doc in docs {
        let whole = parse_document(doc, "folder").map(|d| (d.frontmatter, d.warnings));
        let head = parse_document(cut(doc), "folder").map(|d| (d.frontmatter, d.warnings));
        assert_eq!(head, whole, "{}", String::from_utf8_lossy(doc));
    }
}

#[test]
fn documents_the_parser_would_fault_go_across_whole() {
    let no_fence = b"# Just markdown\n---\nname: x\n---\n";
    let unclosed = b"---\nname: a\nbody without a fence\n";
    let bad_body = b"---\nname: a\n---\nbody \xFF\xFE bytes\n";
    for doc in [&no_fence[..], &unclosed[..], &bad_body[..]] {
        assert_eq!(cut(doc), doc);
    }
}

#[test]
fn heads_are_packed_and_errors_and_stamps_kept() {
    let first = b"---\nname: a\n---\nbody one\n".to_vec();
    let second = b"---\nname: b\n---\nbody two, longer\n".to_vec();
    let stamp = |size: usize| Stamp {
        size: size as u64,
        modified_ns: Some(7),
    };
    let mut data = first.clone();
    data.extend_from_slice(&second);
    let read = ReadResult {
        files: vec![
            Ok(FileSlice {
                offset: 0,
                len: first.len() as u64,
                stamp: stamp(first.len()),
            }),
            Err(FsError::NotFound),
            Ok(FileSlice {
                offset: first.len() as u64,
                len: second.len() as u64,
                stamp: stamp(second.len()),
            }),
        ],
        data,
    };
    let out = heads(read);
    assert_eq!(out.data, b"---\nname: a\n---\n---\nname: b\n---\n");
    assert!(matches!(out.files[1], Err(FsError::NotFound)));
    let Ok(last) = &out.files[2] else {
        panic!("the third file was read");
    };
    assert_eq!((last.offset, last.len), (16, 16));
    assert_eq!(last.stamp.size, second.len() as u64);
}
