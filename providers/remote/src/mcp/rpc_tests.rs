use super::*;

#[test]
fn requests_and_notifications_are_json_rpc_2() {
    let r: Value =
        serde_json::from_slice(&request(7, "skills/list", json!({"cursor": "c"}))).unwrap();
    assert_eq!(
        r,
        json!({"jsonrpc": "2.0", "id": 7, "method": "skills/list", "params": {"cursor": "c"}})
    );
    let n: Value = serde_json::from_slice(&notification("notifications/initialized")).unwrap();
    assert_eq!(
        n,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
}

#[test]
fn a_json_answer_gives_its_result_or_its_error() {
    let ok = br#"{"jsonrpc":"2.0","id":3,"result":{"skills":[]}}"#;
    assert_eq!(answer(ok, "application/json", 3), Ok(json!({"skills": []})));
    let err = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no such skill"}}"#;
    assert_eq!(
        answer(err, "application/json; charset=utf-8", 3),
        Err(Failure::Rpc {
            code: -32602,
            message: "no such skill".into()
        })
    );
    assert!(matches!(
        answer(ok, "application/json", 4),
        Err(Failure::Protocol(_))
    ));
    assert!(matches!(
        answer(b"<html>", "application/json", 3),
        Err(Failure::Protocol(_))
    ));
}

#[test]
fn an_sse_answer_skips_what_the_server_says_on_the_way() {
    let body = "data: \nid: 0\n\n\
        data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n\
        data: {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n\n\
        data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"ok\":true}}\n\n";
    assert_eq!(
        answer(body.as_bytes(), "text/event-stream", 5),
        Ok(json!({"ok": true}))
    );
}

#[test]
fn an_sse_stream_cut_before_the_answer_says_so() {
    let cut = "data: \nid: 0\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"resu";
    let Err(Failure::Protocol(message)) = answer(cut.as_bytes(), "text/event-stream", 5) else {
        panic!("a cut stream is not an answer");
    };
    assert!(message.contains("broke off"), "{message}");
    let Err(Failure::Protocol(message)) = answer(b"data: \n\n", "text/event-stream", 5) else {
        panic!("an empty stream is not an answer");
    };
    assert!(message.contains("ended before"), "{message}");
}

#[test]
fn a_batch_answer_is_searched_for_the_request() {
    let body =
        br#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"x":1}}]"#;
    assert_eq!(answer(body, "application/json", 2), Ok(json!({"x": 1})));
}
