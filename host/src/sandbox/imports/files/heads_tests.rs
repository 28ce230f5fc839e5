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
fn a_file_just_read_is_cut_to_its_head_and_keeps_its_stamp() {
    let first = b"---\nname: a\n---\nbody one\n".to_vec();
    let second = b"---\nname: b\n---\nbody two, longer\n".to_vec();
    let stamp = Stamp {
        size: second.len() as u64,
        modified_ns: Some(7),
    };
    let mut data = first.clone();
    let first_slice = Keep::Head.cut(
        &mut data,
        FileSlice {
            offset: 0,
            len: first.len() as u64,
            stamp,
        },
    );
    assert_eq!((first_slice.offset, first_slice.len), (0, 16));
    data.extend_from_slice(&second);
    let slice = FileSlice {
        offset: 16,
        len: second.len() as u64,
        stamp,
    };
    let whole = Keep::Whole.cut(&mut data.clone(), slice);
    assert_eq!((whole.offset, whole.len), (slice.offset, slice.len));
    let last = Keep::Head.cut(&mut data, slice);
    assert_eq!(data, b"---\nname: a\n---\n---\nname: b\n---\n");
    assert_eq!((last.offset, last.len), (16, 16));
    assert_eq!(
        last.stamp.size,
        second.len() as u64,
        "the whole file's size"
    );
}

#[test]
fn a_file_read_ahead_gives_its_head_and_is_charged_whole() {
    use super::super::read::{Ahead, append_ahead};
    use std::sync::atomic::{AtomicU64, Ordering};
    let doc = b"---\nname: a\n---\nbody\n".to_vec();
    let ahead = |bytes: &[u8]| Ahead {
        head: None,
        bytes: bytes.to_vec(),
        slice: FileSlice {
            offset: 0,
            len: bytes.len() as u64,
            stamp: Stamp {
                size: bytes.len() as u64,
                modified_ns: None,
            },
        },
    };
    let budget = AtomicU64::new(1000);
    let mut data = b"xy".to_vec();
    let head = append_ahead(&ahead(&doc), &mut data, &budget, Keep::Head).unwrap();
    assert_eq!((head.offset, head.len), (2, 16));
    assert_eq!(&data[2..], b"---\nname: a\n---\n");
    assert_eq!(budget.load(Ordering::Relaxed), 1000 - doc.len() as u64);
    let whole = append_ahead(&ahead(&doc), &mut data, &budget, Keep::Whole).unwrap();
    assert_eq!(&data[whole.offset as usize..], &doc[..]);
    // A head the reader found is used as it is.
    let found = Ahead {
        head: Some(4),
        ..ahead(&doc)
    };
    let cut = append_ahead(&found, &mut data, &budget, Keep::Head).unwrap();
    assert_eq!(&data[cut.offset as usize..], b"---\n");
    let whole = append_ahead(&found, &mut data, &budget, Keep::Whole).unwrap();
    assert_eq!(whole.len, doc.len() as u64);
    let spent = AtomicU64::new(3);
    assert!(matches!(
        append_ahead(&ahead(&doc), &mut data, &spent, Keep::Head),
        Err(FsError::Transient(_))
    ));
}
