//! Remote skills (a mirror behind a real nginx) are served too, under URIs
//! that keep their namespace and still end in the skill's name, beside a
//! local skill of the same name; a republished mirror reaches clients.

use crate::support::*;
use rmcp::model::{ReadResourceRequestParams, SkillResources};
use skillhost::{RemoteSource, Sources};
use skillhost_mcp::Options;
use skillhost_publish::mirror;
use skillhost_tests::nginx::Nginx;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_skills_keep_their_namespace_in_the_uri_and_verify_like_local_ones() {
    let team = tempfile::tempdir().unwrap();
    let write = |path: &str, bytes: &[u8]| skillhost_tests::write(team.path(), path, bytes);
    write(
        "pdf-tools/SKILL.md",
        skill("pdf-tools", "Remote PDFs").as_bytes(),
    );
    write("pdf-tools/references/GUIDE.md", b"# Guide\n");
    write(
        "alpha/SKILL.md",
        skill("alpha", "The remote alpha").as_bytes(),
    );
    let out = tempfile::tempdir().unwrap();
    let runtime = skillhost_tests::runtime();
    mirror::write(&runtime, &[team.path().to_path_buf()], out.path()).unwrap();
    let nginx = Nginx::serve(out.path());
    let mut source = RemoteSource::new(&nginx.url())
        .unwrap()
        .labelled("team")
        .unwrap();
    source.poll = Duration::from_millis(200);
    let served = Served::start_over(
        &[(
            "alpha/SKILL.md",
            skill("alpha", "The local alpha").as_bytes(),
        )],
        Options::default(),
        |o| o,
        move |runtime, root| {
            runtime
                .registry_for_sources(&Sources {
                    remotes: vec![source],
                    ..Sources::user_roots([root])
                })
                .unwrap()
        },
    )
    .await;
    let recorder = Recorder::default();
    let client = legacy_with(&served.url, None, recorder.clone()).await;
    let modern = modern(&served.url).await;
    for client in [&client, &modern] {
        let all = client.list_all_skills().await.unwrap();
        let uris: Vec<(&str, &str)> = all
            .iter()
            .map(|s| (s.uri.as_str(), s.frontmatter.name.as_str()))
            .collect();
        assert_eq!(
            uris,
            [
                ("skill://alpha/SKILL.md", "alpha"),
                ("skill://team/alpha/SKILL.md", "alpha"),
                ("skill://team/pdf-tools/SKILL.md", "pdf-tools"),
            ]
        );
        for entry in &all {
            let SkillResources::Files(files) = &entry.resources else {
                panic!()
            };
            for file in files {
                assert!(
                    file.uri
                        .starts_with(&entry.uri[..entry.uri.len() - "SKILL.md".len()])
                );
                let read = client
                    .read_resource(ReadResourceRequestParams::new(file.uri.clone()))
                    .await
                    .unwrap();
                let bytes = bytes_of(&read.contents[0]);
                assert_eq!(
                    (bytes.len() as u64, sha256(&bytes)),
                    (file.size, file.digest.clone())
                );
            }
        }
        let prompts: Vec<String> = client
            .list_all_prompts()
            .await
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(prompts, ["alpha", "team:alpha", "team:pdf-tools"]);
    }
    // A republished mirror: a body-only change updates its subscribers, a
    // new skill changes the lists.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let uri = "skill://team/pdf-tools/SKILL.md";
    subscribe(&client, uri).await;
    write(
        "pdf-tools/SKILL.md",
        b"---\nname: pdf-tools\ndescription: Remote PDFs\n---\nA new remote body.\n",
    );
    mirror::write(&runtime, &[team.path().to_path_buf()], out.path()).unwrap();
    let event = format!("resources/updated {uri}");
    if !recorder.arrives(&event).await {
        // What the remote provider was answered, and what the host made of
        // it: a miss says whether the poll saw the new index.
        let providers: Vec<String> = served
            .live
            .registry()
            .providers()
            .iter()
            .map(|p| {
                format!(
                    "{}: generation {}, snapshots {}, instances {}",
                    p.id(),
                    p.signals().generation(),
                    p.stats().snapshots(),
                    p.stats().instantiations()
                )
            })
            .collect();
        panic!(
            "{event} never arrived; got {:?}\nproviders: {providers:?}\nviews made: {}\n\
             diagnostics: {:?}\nnginx answered: {:?}",
            recorder.seen(),
            served.live.rebuilds(),
            served.live.view().catalog.diagnostics,
            answered(&nginx)
        );
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        !recorder.seen().iter().any(|e| e.ends_with("list_changed")),
        "a body-only change is no list change: {:?}",
        recorder.seen()
    );
    write(
        "later/SKILL.md",
        skill("later", "Published later").as_bytes(),
    );
    mirror::write(&runtime, &[team.path().to_path_buf()], out.path()).unwrap();
    recorder.until("resources/list_changed").await;
    assert_eq!(client.list_all_skills().await.unwrap().len(), 4);
    client.cancel().await.unwrap();
    modern.cancel().await.unwrap();
    served.stop().await;
}

/// What nginx answered, in order, each run of equal answers as one line
/// with its count (a poll answered 304 fifty times is one line).
fn answered(nginx: &Nginx) -> Vec<String> {
    let mut runs: Vec<(u16, String, usize)> = Vec::new();
    for logged in nginx.log() {
        match runs.last_mut() {
            Some((status, path, count)) if *status == logged.status && *path == logged.path => {
                *count += 1
            }
            _ => runs.push((logged.status, logged.path, 1)),
        }
    }
    runs.into_iter()
        .map(|(status, path, count)| format!("{status} {path} x{count}"))
        .collect()
}
