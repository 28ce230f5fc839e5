//! The Skills Extension's listing and reads: complete entries, paging that
//! never splits an entry, bytes that match their digests, and the limits.

use crate::support::*;
use rmcp::model::{
    DIRECTORY_MIME_TYPE, GetSkillRequestParams, PaginatedRequestParams,
    ReadResourceDirectoryRequestParams, ReadResourceRequestParams, SkillResources,
};
use serde_json::json;
use skillhost_mcp::Options;
use std::collections::BTreeSet;

fn many(count: usize) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for i in 0..count {
        let name = format!("skill-{i:04}");
        files.push((
            format!("{name}/SKILL.md"),
            skill(&name, &format!("Generated skill {i}")).into_bytes(),
        ));
        if i % 3 == 0 {
            files.push((format!("{name}/references/notes.md"), b"# Notes\n".to_vec()));
        }
    }
    files
}

fn file_count(resources: &SkillResources) -> usize {
    match resources {
        SkillResources::Files(files) => files.len(),
        _ => panic!("a served skill always lists its files"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_list_pages_never_split_an_entry_and_cover_every_skill_once() {
    let files = many(250);
    let options = Options {
        page_size: 40,
        ..Options::default()
    };
    let served = Served::start_with(&borrowed(&files), options, |o| o).await;
    for client in [legacy(&served.url).await, modern(&served.url).await] {
        let mut seen = BTreeSet::new();
        let mut cursor = None;
        let mut pages = 0;
        loop {
            let page = client
                .list_skills(Some(PaginatedRequestParams::default().with_cursor(cursor)))
                .await
                .unwrap();
            pages += 1;
            assert!(page.skills.len() <= 40);
            for entry in &page.skills {
                assert!(seen.insert(entry.uri.clone()), "{} on two pages", entry.uri);
                let index: usize = entry.frontmatter.name[6..].parse().unwrap();
                // The whole set on this page: SKILL.md, and the notes of every third.
                let expected = if index.is_multiple_of(3) { 2 } else { 1 };
                assert_eq!(file_count(&entry.resources), expected, "{}", entry.uri);
            }
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        assert_eq!(seen.len(), 250);
        assert_eq!(pages, 7);
        assert_eq!(client.list_all_skills().await.unwrap().len(), 250);
        let bad = client
            .list_skills(Some(
                PaginatedRequestParams::default().with_cursor(Some("garbage".into())),
            ))
            .await;
        assert!(bad.is_err(), "an unknown cursor is refused");
        client.cancel().await.unwrap();
    }
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_is_bounded_in_bytes_but_always_holds_one_whole_entry() {
    // One skill with many files makes an entry far larger than the budget.
    let mut files = many(5);
    for i in 0..300 {
        files.push((
            format!("skill-0002/data/f{i:03}.txt"),
            format!("{i}\n").into_bytes(),
        ));
    }
    let options = Options {
        page_bytes: 2_000,
        ..Options::default()
    };
    let served = Served::start_with(&borrowed(&files), options, |o| o).await;
    let client = modern(&served.url).await;
    let mut cursor = None;
    let mut sizes = Vec::new();
    loop {
        let page = client
            .list_skills(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .unwrap();
        sizes.push(
            page.skills
                .iter()
                .map(|s| file_count(&s.resources))
                .collect::<Vec<_>>(),
        );
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert!(sizes.iter().all(|page| !page.is_empty()));
    assert!(
        sizes.iter().any(|page| page == &[301]),
        "the big entry whole: {sizes:?}"
    );
    assert_eq!(sizes.iter().map(Vec::len).sum::<usize>(), 5);
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_listed_file_reads_back_as_the_bytes_its_digest_and_size_describe() {
    let png: &[u8] = &[0x89, b'P', b'N', b'G', 0, 1, 2, 255];
    let md = b"---\nname: pdf-tools\ndescription: Work with PDFs\nlicense: MIT\nmetadata:\n  author: team\n  version: \"1.2\"\nallowed-tools: Read Bash\nx-team: core\n---\n# PDF tools\n\nSee references/GUIDE.md.\n";
    let served = Served::start(&[
        ("pdf-tools/SKILL.md", md),
        ("pdf-tools/references/GUIDE.md", b"# Guide\n"),
        ("pdf-tools/assets/logo.png", png),
        ("pdf-tools/scripts/run me.sh", b"#!/bin/sh\necho hi\n"),
        ("notes/SKILL.md", skill("notes", "Take notes").as_bytes()),
    ])
    .await;
    for (client, stateless) in [
        (legacy(&served.url).await, false),
        (modern(&served.url).await, true),
    ] {
        let all = client.list_all_skills().await.unwrap();
        assert_eq!(
            all.iter().map(|s| s.uri.as_str()).collect::<Vec<_>>(),
            ["skill://notes/SKILL.md", "skill://pdf-tools/SKILL.md"]
        );
        let pdf = &all[1];
        assert_eq!(
            serde_json::to_value(&pdf.frontmatter).unwrap(),
            json!({"name": "pdf-tools", "description": "Work with PDFs", "license": "MIT",
                   "metadata": {"author": "team", "version": "1.2"}, "allowed-tools": "Read Bash",
                   "x-team": "core"}),
            "every field the author wrote, unknown ones too"
        );
        let SkillResources::Files(files) = &pdf.resources else {
            panic!()
        };
        let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://pdf-tools/SKILL.md",
                "skill://pdf-tools/assets/logo.png",
                "skill://pdf-tools/references/GUIDE.md",
                "skill://pdf-tools/scripts/run%20me.sh",
            ]
        );
        for file in files {
            let read = client
                .read_resource(ReadResourceRequestParams::new(file.uri.clone()))
                .await
                .unwrap();
            let bytes = bytes_of(&read.contents[0]);
            assert_eq!(bytes.len() as u64, file.size, "{}", file.uri);
            assert_eq!(sha256(&bytes), file.digest, "{}", file.uri);
        }
        // skills/get: the same entry, echoing the URI asked for.
        let got = client
            .get_skill(GetSkillRequestParams::new("skill://pdf-tools/SKILL.md"))
            .await
            .unwrap();
        assert_eq!(&got.skill, pdf);
        if stateless {
            // Cacheable results carry the hints on 2026-07-28.
            assert_eq!(got.ttl_ms, Some(60_000));
            assert_eq!(got.cache_scope, Some(rmcp::model::CacheScope::Private));
        }
        client.cancel().await.unwrap();
    }
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_directories_describe_the_same_files() {
    let served = Served::start(&[
        (
            "pdf-tools/SKILL.md",
            skill("pdf-tools", "Work with PDFs").as_bytes(),
        ),
        ("pdf-tools/templates/invoice.md", b"# Invoice\n"),
        ("pdf-tools/templates/regional/eu.md", b"# EU\n"),
    ])
    .await;
    let client = modern(&served.url).await;
    let resources = client.list_all_resources().await.unwrap();
    let skill_md = resources
        .iter()
        .find(|r| r.uri == "skill://pdf-tools/SKILL.md")
        .unwrap();
    assert_eq!(skill_md.name, "pdf-tools");
    assert_eq!(skill_md.description.as_deref(), Some("Work with PDFs"));
    assert_eq!(skill_md.mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(resources.len(), 3);
    let dir = |uri: &str| ReadResourceDirectoryRequestParams::new(uri);
    let root = client
        .read_resource_directory(dir("skill://pdf-tools"))
        .await
        .unwrap();
    let children: Vec<(&str, Option<&str>)> = root
        .resources
        .iter()
        .map(|r| (r.uri.as_str(), r.mime_type.as_deref()))
        .collect();
    assert_eq!(
        children,
        [
            ("skill://pdf-tools/SKILL.md", Some("text/markdown")),
            ("skill://pdf-tools/templates", Some(DIRECTORY_MIME_TYPE)),
        ]
    );
    let templates = client
        .read_resource_directory(dir("skill://pdf-tools/templates"))
        .await
        .unwrap();
    assert_eq!(templates.resources.len(), 2);
    for not_a_dir in [
        "skill://pdf-tools/SKILL.md",
        "skill://pdf-tools/nope",
        "skill://other",
    ] {
        let err = client.read_resource_directory(dir(not_a_dir)).await;
        assert!(err.is_err(), "{not_a_dir} is not a directory");
    }
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_over_the_limits_or_outside_the_naming_rules_are_left_out_with_the_reason() {
    let mut files = vec![
        (
            "fine/SKILL.md".to_string(),
            skill("fine", "Served").into_bytes(),
        ),
        (
            "crowded/SKILL.md".to_string(),
            skill("crowded", "Too many files").into_bytes(),
        ),
        (
            "heavy/SKILL.md".to_string(),
            skill("heavy", "Too many bytes").into_bytes(),
        ),
        ("heavy/blob.bin".to_string(), vec![7u8; 16 * 1024 * 1024]),
        (
            "Odd_Name/SKILL.md".to_string(),
            skill("Odd_Name", "Not an Agent Skills name").into_bytes(),
        ),
        (
            "bare/SKILL.md".to_string(),
            b"---\nname: bare\n---\nNo description.\n".to_vec(),
        ),
    ];
    for i in 0..512 {
        files.push((format!("crowded/f/{i}.txt"), b"x".to_vec()));
    }
    let served = Served::start(&borrowed(&files)).await;
    let client = modern(&served.url).await;
    let names: Vec<String> = client
        .list_all_skills()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.frontmatter.name)
        .collect();
    assert_eq!(names, ["fine"]);
    let view = served.live.view();
    let reason = |name: &str| view.left_out.get(name).map(|o| o.reason.clone()).unwrap();
    assert!(
        reason("crowded").contains("513 files"),
        "{}",
        reason("crowded")
    );
    assert!(reason("heavy").contains("bytes"), "{}", reason("heavy"));
    assert!(
        reason("Odd_Name").contains("naming rules"),
        "{}",
        reason("Odd_Name")
    );
    assert!(reason("bare").contains("description"), "{}", reason("bare"));
    // Left out of the extension, a skill is still a prompt and in the tool.
    let prompts = client.list_all_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "crowded"));
    client.cancel().await.unwrap();
    served.stop().await;
}
