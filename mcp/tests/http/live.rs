//! Live notifications with the real watcher: a new skill folder changes
//! every list; a body-only edit changes none, and only its subscribers hear
//! `resources/updated`; on 2026-07-28 the same arrive on
//! `subscriptions/listen`.

use crate::support::*;
use rmcp::model::{
    GetSkillRequestParams, ReadResourceRequestParams, ServerNotification, SkillResources,
    SubscriptionFilter,
};
use std::sync::Arc;
use std::time::Duration;

const ALL_LISTS: [&str; 3] = [
    "resources/list_changed",
    "prompts/list_changed",
    "tools/list_changed",
];

/// Lets the client's notification stream settle before disk changes.
async fn settle(client: &Client) {
    client.list_all_skills().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
}

fn digest_of(skills: &[rmcp::model::Skill], uri: &str) -> String {
    skills
        .iter()
        .flat_map(|s| match &s.resources {
            SkillResources::Files(files) => files.clone(),
            _ => Vec::new(),
        })
        .find(|f| f.uri == uri)
        .map(|f| f.digest)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_skill_changes_every_list_and_a_body_only_edit_only_updates_its_subscribers() {
    let served = Served::start(&[
        ("alpha/SKILL.md", skill("alpha", "The first").as_bytes()),
        ("alpha/references/notes.md", b"# Notes\n"),
    ])
    .await;
    let recorder = Recorder::default();
    let client = legacy_with(&served.url, None, recorder.clone()).await;
    let bystander = Recorder::default();
    let other = legacy_with(&served.url, None, bystander.clone()).await;
    settle(&client).await;
    settle(&other).await;

    served.add_skill("beta", "Made while serving");
    for event in ALL_LISTS {
        recorder.until(event).await;
        bystander.until(event).await;
    }
    let names: Vec<String> = client
        .list_all_skills()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.frontmatter.name)
        .collect();
    assert_eq!(names, ["alpha", "beta"]);

    let uri = "skill://alpha/SKILL.md";
    subscribe(&client, uri).await;
    let before = digest_of(&client.list_all_skills().await.unwrap(), uri);
    recorder.events.lock().unwrap().clear();
    bystander.events.lock().unwrap().clear();
    served.write(
        "alpha/SKILL.md",
        b"---\nname: alpha\ndescription: The first\n---\nA new body.\n",
    );
    recorder.until(&format!("resources/updated {uri}")).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(recorder.seen(), [format!("resources/updated {uri}")]);
    assert!(
        bystander.seen().is_empty(),
        "not subscribed: {:?}",
        bystander.seen()
    );
    // The listing already carries the new digest, and the read matches it.
    let after = digest_of(&client.list_all_skills().await.unwrap(), uri);
    assert_ne!(before, after);
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    assert_eq!(sha256(&bytes_of(&read.contents[0])), after);

    // A reference edit nobody subscribed to tells nobody anything.
    recorder.events.lock().unwrap().clear();
    served.write("alpha/references/notes.md", b"# Notes, longer now\n");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(recorder.seen().is_empty(), "{:?}", recorder.seen());

    // A new description is a catalog change: every list.
    served.write(
        "alpha/SKILL.md",
        skill("alpha", "Described anew").as_bytes(),
    );
    for event in ALL_LISTS {
        recorder.until(event).await;
    }
    client.cancel().await.unwrap();
    other.cancel().await.unwrap();
    served.stop().await;
}

/// A file in a skill's subfolder changes no catalog, yet its digest is
/// served: the server hears of the edit, tells its subscribers and lists
/// the new digest, so a client that verifies what it reads never sees a
/// stale one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_reference_file_is_listed_with_its_new_digest_and_announced() {
    let served = Served::start(&[
        ("alpha/SKILL.md", skill("alpha", "The first").as_bytes()),
        ("alpha/references/notes.md", b"# Notes\n"),
    ])
    .await;
    let recorder = Recorder::default();
    let client = legacy_with(&served.url, None, recorder.clone()).await;
    settle(&client).await;
    let uri = "skill://alpha/references/notes.md";
    subscribe(&client, uri).await;
    let before = digest_of(&client.list_all_skills().await.unwrap(), uri);
    served.write("alpha/references/notes.md", b"# Notes, edited\n");
    recorder.until(&format!("resources/updated {uri}")).await;
    let after = digest_of(&client.list_all_skills().await.unwrap(), uri);
    assert_ne!(before, after);
    assert_eq!(after, sha256(b"# Notes, edited\n"));
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_added_to_a_skill_changes_only_the_resource_list_and_is_served_at_once() {
    let served = Served::start(&[("alpha/SKILL.md", skill("alpha", "The first").as_bytes())]).await;
    let recorder = Recorder::default();
    let client = legacy_with(&served.url, None, recorder.clone()).await;
    settle(&client).await;
    served.write("alpha/references/new.md", b"# New\n");
    recorder.until("resources/list_changed").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(recorder.seen(), ["resources/list_changed"]);
    let got = client
        .get_skill(GetSkillRequestParams::new("skill://alpha/SKILL.md"))
        .await
        .unwrap();
    let SkillResources::Files(files) = &got.skill.resources else {
        panic!()
    };
    assert_eq!(files.len(), 2);
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "skill://alpha/references/new.md",
        ))
        .await
        .unwrap();
    assert_eq!(bytes_of(&read.contents[0]), b"# New\n");
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_asks_the_provider_again_only_for_the_skill_it_touched() {
    let files: Vec<(String, String)> = (0..40)
        .map(|i| {
            let name = format!("s{i:02}");
            (format!("{name}/SKILL.md"), skill(&name, "Generated"))
        })
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_bytes()))
        .collect();
    let served = Served::start(&borrowed).await;
    let before = served.live.view();
    let rebuilds = served.live.rebuilds();
    served.write("s07/SKILL.md", skill("s07", "Changed").as_bytes());
    let started = std::time::Instant::now();
    while served.live.rebuilds() == rebuilds
        || served.live.view().entries.len() != 40
        || served
            .live
            .view()
            .entry("skill://s07/SKILL.md")
            .unwrap()
            .skill
            .description()
            != Some("Changed")
    {
        assert!(
            started.elapsed() < PATIENCE,
            "the change never reached the view"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let after = served.live.view();
    let carried = before
        .entries
        .iter()
        .zip(&after.entries)
        .filter(|(a, b)| Arc::ptr_eq(a, b))
        .count();
    assert_eq!(carried, 39, "only s07 was made again");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_listen_carries_list_changes_and_updates_on_2026() {
    let served = Served::start(&[("alpha/SKILL.md", skill("alpha", "The first").as_bytes())]).await;
    let client = modern(&served.url).await;
    let uri = "skill://alpha/SKILL.md";
    let filter = SubscriptionFilter::builder()
        .resources_list_changed()
        .prompts_list_changed()
        .tools_list_changed()
        .resource_subscriptions([uri, "skill://alpha/not-served.md"])
        .build();
    let mut subscription = client.peer().listen(filter).await.unwrap();
    assert_eq!(
        subscription
            .acknowledged()
            .resource_subscriptions
            .as_deref(),
        Some(&[uri.to_string()][..]),
        "only served URIs are accepted"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    served.add_skill("beta", "Made while listening");
    let mut got = vec![];
    for _ in 0..3 {
        got.push(next(&mut subscription).await);
    }
    got.sort();
    assert_eq!(got, ["prompts", "resources", "tools"]);
    served.write(
        "alpha/SKILL.md",
        b"---\nname: alpha\ndescription: The first\n---\nEdited body.\n",
    );
    assert_eq!(next(&mut subscription).await, format!("updated {uri}"));
    client.cancel().await.unwrap();
    served.stop().await;
}

async fn next(subscription: &mut rmcp::service::Subscription) -> String {
    let got = tokio::time::timeout(PATIENCE, subscription.next())
        .await
        .expect("a notification");
    match got.unwrap().expect("the stream stays open") {
        ServerNotification::ResourceListChangedNotification(_) => "resources".to_string(),
        ServerNotification::PromptListChangedNotification(_) => "prompts".to_string(),
        ServerNotification::ToolListChangedNotification(_) => "tools".to_string(),
        ServerNotification::ResourceUpdatedNotification(n) => format!("updated {}", n.params.uri),
        other => format!("{other:?}"),
    }
}
