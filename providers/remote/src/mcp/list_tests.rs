use super::*;
use serde_json::json;

fn pages(all: Vec<Value>) -> impl FnMut(Option<&str>) -> Result<Page, String> {
    move |cursor| {
        let index = cursor.map_or(0, |c| c.parse::<usize>().unwrap());
        page(&all[index])
    }
}

#[test]
fn three_pages_are_joined_in_order_with_the_shortest_ttl() {
    let all = vec![
        json!({"skills": [{"uri": "a"}], "nextCursor": "1", "ttlMs": 5000}),
        json!({"skills": [{"uri": "b"}], "nextCursor": "2", "ttlMs": 2000}),
        json!({"skills": [{"uri": "c"}]}),
    ];
    let listing = collect(pages(all)).unwrap();
    assert_eq!(listing.pages, 3);
    assert_eq!(listing.ttl_ms, Some(2000));
    let uris: Vec<&str> = listing
        .skills
        .iter()
        .filter_map(|s| s["uri"].as_str())
        .collect();
    assert_eq!(uris, ["a", "b", "c"]);
}

#[test]
fn a_cursor_that_comes_back_is_a_loop_and_refused() {
    let all = vec![
        json!({"skills": [], "nextCursor": "1"}),
        json!({"skills": [], "nextCursor": "1"}),
    ];
    let error = collect(pages(all)).unwrap_err();
    assert!(error.contains("twice"), "{error}");
}

#[test]
fn a_page_without_a_skills_list_or_with_a_bad_cursor_is_refused() {
    assert!(page(&json!({"nextCursor": "x"})).is_err());
    assert!(page(&json!({"skills": [], "nextCursor": 3})).is_err());
    assert_eq!(
        page(&json!({"skills": [], "nextCursor": ""})).unwrap().next,
        None
    );
}

#[test]
fn an_error_on_any_page_fails_the_listing() {
    let mut calls = 0;
    let error = collect(|cursor| {
        calls += 1;
        match cursor {
            None => Ok(Page {
                skills: vec![],
                next: Some("n".into()),
                ttl_ms: None,
            }),
            Some(_) => Err("HTTP 500".to_string()),
        }
    })
    .unwrap_err();
    assert_eq!((calls, error.as_str()), (2, "HTTP 500"));
}
