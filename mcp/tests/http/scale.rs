//! 550 skills through a client that shows a model only the first 2,048
//! characters of each tool description and of the server instructions,
//! as Claude Code does: every skill can still be found and run.

use crate::support::*;
use rmcp::model::{CallToolRequestParams, ContentBlock, PaginatedRequestParams};
use serde_json::{Value, json};
use std::collections::BTreeSet;

const COUNT: usize = 550;
/// What Claude Code shows of an MCP tool description or server instructions.
const CLIENT_CUT: usize = 2_048;

fn topic(i: usize) -> &'static str {
    [
        "pdf",
        "docker",
        "react",
        "sql",
        "kubernetes",
        "testing",
        "security",
    ][i % 7]
}

/// Each skill's description holds a word no other has, as a real one
/// holds what it is for.
fn fixture() -> Vec<(String, Vec<u8>)> {
    (0..COUNT)
        .map(|i| {
            let name = format!("{}-helper-{i:03}", topic(i));
            let description = format!(
                "Helps with {} work, especially the task called quill{i:03}x; use it when the \
                 user mentions {} and needs a careful, repeatable procedure",
                topic(i),
                topic(i)
            );
            (
                format!("{name}/SKILL.md"),
                skill(&name, &description).into_bytes(),
            )
        })
        .collect()
}

fn text_of(content: &ContentBlock) -> String {
    match content {
        ContentBlock::Text(t) => t.text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

async fn call(client: &Client, tool: &str, arguments: Value) -> (bool, String) {
    let Value::Object(arguments) = arguments else {
        panic!()
    };
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(arguments))
        .await
        .unwrap();
    (result.is_error == Some(true), text_of(&result.content[0]))
}

/// The names a page of search results lists.
fn listed(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(|l| l.split(':').next().unwrap_or(l).to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_a_client_that_cuts_at_2048_every_one_of_550_skills_can_be_found_and_run() {
    let files = fixture();
    let served = Served::start(&borrowed(&files)).await;
    let client = legacy(&served.url).await;

    // What the model is shown: nothing the client would cut, and the way
    // to every skill said in what it sees.
    let instructions = client
        .peer_info()
        .and_then(|info| info.instructions.clone())
        .expect("instructions");
    assert!(instructions.chars().count() <= CLIENT_CUT, "{instructions}");
    assert!(instructions.contains("search_skills"));
    assert!(
        !instructions.contains("use skills/list"),
        "a model cannot call it"
    );
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["skill", "search_skills"]);
    for tool in &tools {
        let description = tool.description.as_deref().unwrap();
        assert!(
            description.chars().count() <= CLIENT_CUT,
            "{}: {} characters",
            tool.name,
            description.chars().count()
        );
    }
    let skill_tool = tools[0].description.as_deref().unwrap();
    let shown: String = skill_tool.chars().take(CLIENT_CUT).collect();
    assert!(shown.contains("550 skills are available"), "{shown}");
    assert!(shown.contains("search_skills"), "{shown}");
    assert!(
        shown.ends_with("</available_skills>"),
        "the listing closes: {shown}"
    );
    assert!(shown.contains("more not listed: call search_skills to find them"));

    // An empty query walks every skill exactly once, page by page.
    let mut seen = Vec::new();
    let mut page = 1;
    loop {
        let (error, text) = call(&client, "search_skills", json!({"page": page})).await;
        assert!(!error, "{text}");
        assert!(text.chars().count() <= 8_000, "a page fits a turn");
        seen.extend(listed(&text));
        if !text.contains("More: ") {
            break;
        }
        page += 1;
    }
    assert_eq!(seen.len(), COUNT);
    assert_eq!(seen.iter().collect::<BTreeSet<_>>().len(), COUNT);

    // Each skill found by a word of what it is for, then run.
    for i in 0..COUNT {
        let (error, text) = call(
            &client,
            "search_skills",
            json!({"query": format!("quill{i:03}x")}),
        )
        .await;
        assert!(!error, "{text}");
        let found = listed(&text);
        let name = format!("{}-helper-{i:03}", topic(i));
        assert_eq!(found, std::slice::from_ref(&name), "{text}");
        let (error, text) = call(&client, "skill", json!({"name": name})).await;
        assert!(!error, "{name}: {text}");
    }

    // Prompts are paged too.
    let first = client
        .list_prompts(Some(PaginatedRequestParams::default()))
        .await
        .unwrap();
    assert!(first.prompts.len() < COUNT && first.next_cursor.is_some());
    assert_eq!(client.list_all_prompts().await.unwrap().len(), COUNT);
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_arguments_of_the_wrong_kind_get_a_reason_not_a_page() {
    let served = Served::start(&[("pdf/SKILL.md", skill("pdf", "Read PDFs").as_bytes())]).await;
    let client = legacy(&served.url).await;
    let (error, text) = call(&client, "search_skills", json!({"query": 7})).await;
    assert!(error && text.contains("`query` must be a string"), "{text}");
    let (error, text) = call(&client, "search_skills", json!({"page": 0})).await;
    assert!(
        error && text.contains("`page` must be a whole number"),
        "{text}"
    );
    let (error, text) = call(&client, "search_skills", json!({"query": "pdf"})).await;
    assert!(!error);
    assert_eq!(
        text,
        "1 of 1 skills match \"pdf\" (page 1 of 1):\n- pdf: Read PDFs"
    );
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_list_prompts_and_search_serve_one_set_display_names_included() {
    let display = skill("API Fuzzing for Bug Bounty", "Fuzz APIs for bounties");
    let prefixed = skill("ckm:design-system", "Design tokens");
    let plain = skill("pdf", "Read PDFs");
    let served = Served::start(&[
        ("api-fuzzing-bug-bounty/SKILL.md", display.as_bytes()),
        ("design-system/SKILL.md", prefixed.as_bytes()),
        ("pdf/SKILL.md", plain.as_bytes()),
    ])
    .await;
    let client = legacy(&served.url).await;
    let expected: BTreeSet<String> = ["api-fuzzing-bug-bounty", "design-system", "pdf"]
        .map(String::from)
        .into();
    let skills: BTreeSet<String> = client
        .list_all_skills()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.frontmatter.name)
        .collect();
    assert_eq!(skills, expected);
    let prompts = client.list_all_prompts().await.unwrap();
    let names: BTreeSet<String> = prompts.iter().map(|p| p.name.clone()).collect();
    assert_eq!(names, expected);
    let fuzz = prompts
        .iter()
        .find(|p| p.name == "api-fuzzing-bug-bounty")
        .unwrap();
    assert_eq!(fuzz.title.as_deref(), Some("API Fuzzing for Bug Bounty"));
    let (_, text) = call(&client, "search_skills", json!({})).await;
    let found: BTreeSet<String> = listed(&text).into_iter().collect();
    assert_eq!(found, expected);
    let (error, text) = call(&client, "skill", json!({"name": "design-system"})).await;
    assert!(!error, "{text}");
    client.cancel().await.unwrap();
    served.stop().await;
}
