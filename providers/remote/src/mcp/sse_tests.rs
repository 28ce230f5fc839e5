use super::*;

#[test]
fn the_priming_event_is_skipped_and_each_message_is_one_event() {
    let body = "data: \nid: 0\nretry: 3000\n\ndata: {\"id\":1}\nid: 1/0\n\n";
    assert_eq!(events(body), ["{\"id\":1}"]);
}

#[test]
fn data_lines_of_one_event_join_with_newlines_and_crlf_is_accepted() {
    let body = ": comment\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata:x\r\n\r\n";
    assert_eq!(events(body), ["{\"a\":\n1}", "x"]);
}

#[test]
fn an_event_cut_before_its_blank_line_still_counts_but_half_a_line_is_only_text() {
    assert_eq!(events("data: {\"id\":2}"), ["{\"id\":2}"]);
    // What a cut stream leaves: the caller finds no complete JSON in it.
    assert_eq!(events("data: {\"id\":2,\"res"), ["{\"id\":2,\"res"]);
    assert!(events("").is_empty());
}
