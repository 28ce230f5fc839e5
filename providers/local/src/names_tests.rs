use super::*;

#[test]
fn the_second_claim_of_a_name_gets_the_folder_name_and_the_first_release_frees_it() {
    let mut names = Names::default();
    let first = names.claim("same".into(), "a");
    assert_eq!(
        first,
        Claim {
            name: "same".into(),
            declared: None
        }
    );
    let second = names.claim("same".into(), "b");
    assert_eq!(second.name, "b");
    assert_eq!(second.declared.as_deref(), Some("same"));
    assert!(names.any_renamed());

    names.release(&first.name, false);
    assert!(!names.is_held("same"));
    assert!(names.take_released(), "a renamed skill may take it now");
    assert!(!names.take_released(), "said once");
    names.release(&second.name, true);
    assert!(!names.any_renamed());
    assert!(!names.is_held("b"));
}

#[test]
fn a_folder_name_that_is_taken_or_no_identifier_leaves_the_duplicate_as_declared() {
    let mut names = Names::default();
    names.claim("same".into(), "a");
    names.claim("b".into(), "x");
    assert_eq!(
        names.claim("same".into(), "b").declared,
        None,
        "folder name taken"
    );
    assert_eq!(
        names.claim("same".into(), "b c").declared,
        None,
        "not one word"
    );
    assert_eq!(
        names.claim("same".into(), "same").declared,
        None,
        "the same name"
    );
    assert!(!names.any_renamed());
}

#[test]
fn releasing_a_name_nobody_waits_for_says_nothing() {
    let mut names = Names::default();
    let only = names.claim("only".into(), "only");
    names.release(&only.name, false);
    assert!(!names.take_released());
}
