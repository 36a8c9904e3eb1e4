use serde::Deserialize;

#[derive(Deserialize)]
struct Attendee {
    name: String,
}

#[derive(Deserialize, mrtr::Elicit)]
struct Meeting {
    attendees: Vec<Attendee>,
}

fn main() {}
