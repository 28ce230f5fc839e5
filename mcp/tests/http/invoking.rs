//! For clients without the extension: user-invocable skills as prompts
//! (exactly `invoke --as user`) and the `skill` tool (exactly `invoke --as
//! model`), whose description carries the budgeted listing.

use crate::support::*;
use rmcp::model::{CallToolRequestParams, ContentBlock, GetPromptRequestParams};
use serde_json::{Value, json};
use skillhost::session::invoke::{self, Caller, Request};
use std::collections::BTreeSet;

const FIXTURE: &[(&str, &[u8])] = &[
    (
        "review/SKILL.md",
        b"---\nname: review\ndescription: Review a change\nargument-hint: \"[ref]\"\n---\nReview $ARGUMENTS carefully. First: $0.\n",
    ),
    ("review/scripts/check.sh", b"#!/bin/sh\necho ok\n"),
    (
        "deploy/SKILL.md",
        b"---\nname: deploy\ndescription: Ship it\ndisable-model-invocation: true\n---\nDeploy $0 now.\n",
    ),
    (
        "helper/SKILL.md",
        b"---\nname: helper\ndescription: Background knowledge\nuser-invocable: false\n---\nKnow this.\n",
    ),
    (
        "forked/SKILL.md",
        b"---\nname: forked\ndescription: Runs apart\ncontext: fork\nallowed-tools: Read Grep\nmodel: haiku\n---\nInvestigate $ARGUMENTS.\n",
    ),
    (
        "conditional/SKILL.md",
        b"---\nname: conditional\ndescription: Only for src\npaths: [\"src/**\"]\n---\nConditional.\n",
    ),
];

/// What `skillhost invoke` computes, through the library.
fn expected(served: &Served, name: &str, args: &[&str], caller: Caller) -> String {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let request = Request {
        name,
        args: &args,
        caller,
        session_id: "",
        max_steps: None,
    };
    let invocation = invoke::invoke(served.live.registry(), &request, &BTreeSet::new()).unwrap();
    let root = served
        .live
        .view()
        .entry_named(name)
        .map(|e| e.root.clone())
        .unwrap();
    invocation.message(|rel| skillhost_mcp::uri::file_uri(&root, rel))
}

fn text_of(content: &ContentBlock) -> String {
    match content {
        ContentBlock::Text(t) => t.text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

async fn call(client: &Client, arguments: Value) -> (bool, String) {
    let Value::Object(arguments) = arguments else {
        panic!()
    };
    let result = client
        .call_tool(CallToolRequestParams::new("skill").with_arguments(arguments))
        .await
        .unwrap();
    let text = text_of(&result.content[0]);
    (result.is_error == Some(true), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_invocable_skills_are_prompts_expanded_exactly_as_invoke_as_user() {
    let served = Served::start(FIXTURE).await;
    for client in [legacy(&served.url).await, modern(&served.url).await] {
        let prompts = client.list_all_prompts().await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["deploy", "forked", "review"]);
        let review = prompts.iter().find(|p| p.name == "review").unwrap();
        let argument = &review.arguments.as_ref().unwrap()[0];
        assert_eq!(argument.name, "arguments");
        assert_eq!(argument.description.as_deref(), Some("[ref]"));
        let mut args = serde_json::Map::new();
        args.insert("arguments".into(), json!("HEAD~1 'two words'"));
        let got = client
            .get_prompt(GetPromptRequestParams::new("review").with_arguments(args))
            .await
            .unwrap();
        assert_eq!(
            text_of(&got.messages[0].content),
            expected(&served, "review", &["HEAD~1", "two words"], Caller::User)
        );
        // Seed 001's frame: the title, the base directory, the files as
        // the URIs resources/read serves, then the body.
        let text = text_of(&got.messages[0].content);
        let base = served.root.join("review");
        let root = served
            .live
            .view()
            .entry_named("review")
            .unwrap()
            .root
            .clone();
        assert_eq!(
            text,
            format!(
                "# Skill: review (Review a change)\n\nBase directory: {}\nFiles:\n- {root}/scripts/check.sh\n\n\
                 Review HEAD~1 two words carefully. First: HEAD~1.\n",
                base.display()
            )
        );
        let fork = client
            .get_prompt(GetPromptRequestParams::new("forked"))
            .await
            .unwrap();
        assert_eq!(
            text_of(&fork.messages[0].content),
            expected(&served, "forked", &[], Caller::User)
        );
        for refused in ["helper", "conditional", "missing"] {
            let err = client
                .get_prompt(GetPromptRequestParams::new(refused))
                .await;
            assert!(err.is_err(), "{refused} is no prompt");
        }
        client.cancel().await.unwrap();
    }
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_skill_tool_lists_what_the_model_may_call_and_runs_exactly_as_invoke_as_model() {
    let served = Served::start(FIXTURE).await;
    let client = legacy(&served.url).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 2, "skill and search_skills");
    let description = tools[0].description.as_deref().unwrap();
    assert!(description.contains("<available_skills>"), "{description}");
    for listed in [
        "- review: Review a change",
        "- helper: Background knowledge",
        "- forked: Runs apart",
    ] {
        assert!(description.contains(listed), "{listed} in {description}");
    }
    for hidden in ["deploy", "conditional"] {
        assert!(
            !description.contains(&format!("- {hidden}")),
            "{hidden} hidden"
        );
    }

    let (error, text) = call(&client, json!({"name": "review", "arguments": "main"})).await;
    assert!(!error);
    assert_eq!(text, expected(&served, "review", &["main"], Caller::Model));
    let (error, text) = call(
        &client,
        json!({"name": "review", "arguments": ["a b", "c"]}),
    )
    .await;
    assert!(!error);
    assert_eq!(
        text,
        expected(&served, "review", &["a b", "c"], Caller::Model)
    );
    let (error, text) = call(&client, json!({"name": "helper"})).await;
    assert!(!error);
    assert!(text.starts_with("# Skill: helper (Background knowledge)\n\nBase directory: "));
    assert!(text.ends_with("\n\nKnow this.\n"), "{text}");

    let (error, text) = call(&client, json!({"name": "forked", "arguments": "the logs"})).await;
    assert!(!error);
    let plan: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(plan["context"], "fork");
    assert_eq!(plan["prompt"], "Investigate the logs.\n");
    assert_eq!(plan["allowed_tools"], json!(["Read", "Grep"]));
    assert_eq!(plan["model"], "haiku");
    assert_eq!(
        plan["base"],
        served.root.join("forked").display().to_string(),
        "a fork plan carries where the skill lives"
    );

    let (error, text) = call(&client, json!({"name": "deploy"})).await;
    assert!(error);
    assert!(text.contains("disable-model-invocation"), "{text}");
    let (error, text) = call(&client, json!({"name": "nope"})).await;
    assert!(error);
    assert!(
        text.contains("(3 skill(s) available)"),
        "says how many exist: {text}"
    );
    assert!(!text.contains("review"), "not the whole catalog: {text}");
    let (error, text) = call(&client, json!({"name": "reviw"})).await;
    assert!(error);
    assert!(
        text.contains("did you mean review?"),
        "names the near one: {text}"
    );
    let (error, _) = call(&client, json!({})).await;
    assert!(error, "a call without a name is refused");
    let other = client.call_tool(CallToolRequestParams::new("other")).await;
    assert!(other.is_err(), "no tool of that name");
    client.cancel().await.unwrap();
    served.stop().await;
}
