//! Search: every skill reachable, page by page, in rank order.

use super::super::test_skills::skill;
use super::*;
use crate::model::Scope;

fn names(found: &Found<'_>) -> Vec<String> {
    found.skills.iter().map(|s| s.name().to_string()).collect()
}

#[test]
fn an_exact_name_comes_first_then_names_holding_the_words_then_descriptions() {
    let a = skill("pdf-tools", "Merge files", Scope::User);
    let b = skill("pdf", "Read documents", Scope::User);
    let c = skill("docs", "Fill a PDF form", Scope::Project);
    let d = skill("xlsx", "Spreadsheets", Scope::User);
    let found = search(&[&a, &b, &c, &d], &Scores::new(), "PDF", 1, 10);
    assert_eq!(names(&found), ["pdf", "pdf-tools", "docs"]);
    assert_eq!((found.matched, found.total, found.pages), (3, 4, 1));
}

#[test]
fn every_word_must_match_somewhere() {
    let a = skill("pdf", "Read documents", Scope::User);
    let b = skill("forms", "Fill a PDF form", Scope::User);
    let found = search(&[&a, &b], &Scores::new(), "pdf form", 1, 10);
    assert_eq!(names(&found), ["forms"]);
}

#[test]
fn pages_walk_every_skill_once_in_rank_order() {
    let skills: Vec<Skill> = (0..45)
        .map(|i| skill(&format!("s{i:02}"), "x", Scope::User))
        .collect();
    let refs: Vec<&Skill> = skills.iter().collect();
    let scores: Scores = [("s44".to_string(), 5.0)].into_iter().collect();
    let mut seen = Vec::new();
    for page in 1..=3 {
        let found = search(&refs, &scores, "", page, 20);
        assert_eq!(found.pages, 3);
        seen.extend(names(&found));
    }
    assert_eq!(seen.len(), 45);
    assert_eq!(seen[0], "s44", "the used skill ranks first");
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 45);
}

#[test]
fn the_page_text_says_what_was_found_and_how_to_go_on() {
    let skills: Vec<Skill> = (0..3)
        .map(|i| skill(&format!("s{i}"), "<b>bold</b>", Scope::User))
        .collect();
    let refs: Vec<&Skill> = skills.iter().collect();
    let found = search(&refs, &Scores::new(), "", 1, 2);
    let text = found.text(250, |p| format!("page={p}"));
    assert_eq!(
        text,
        "All 3 skills, in rank order (page 1 of 2):\n\
         - s0: &lt;b&gt;bold&lt;/b&gt;\n- s1: &lt;b&gt;bold&lt;/b&gt;\nMore: page=2."
    );
    let none = search(&refs, &Scores::new(), "nothing", 1, 2);
    assert!(
        none.text(250, |p| p.to_string())
            .starts_with("0 of 3 skills match \"nothing\". Try")
    );
    let past = search(&refs, &Scores::new(), "", 9, 2);
    assert!(
        past.text(250, |p| p.to_string())
            .contains("page 9 is past the last (2)")
    );
}

#[test]
fn a_huge_query_is_cut_to_its_first_characters() {
    let a = skill("pdf", "Read documents", Scope::User);
    let query = format!("pdf {}", "x".repeat(100_000));
    let found = search(&[&a], &Scores::new(), &query, 1, 10);
    assert_eq!(found.query.chars().count(), MAX_QUERY);
    assert_eq!(found.matched, 0);
}
