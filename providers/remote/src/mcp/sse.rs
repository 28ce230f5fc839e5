//! Server-sent events as MCP Streamable HTTP answers with them: the body of
//! one POST, read to its end, split into the `data` of each event.

/// The data of every event in `body`, in order; events with no data (the
/// priming event a server sends first) are left out. A final event not
/// closed by a blank line still counts: a stream that ends there ended
/// cleanly as far as the framing can tell, and whether it held the answer
/// is the caller's question.
pub fn events(body: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    for line in body.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            if let Some(d) = data.take()
                && !d.is_empty()
            {
                events.push(d);
            }
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        if field == "data" {
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_string()),
            }
        }
    }
    if let Some(d) = data
        && !d.is_empty()
    {
        events.push(d);
    }
    events
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
