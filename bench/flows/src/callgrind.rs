//! A callgrind dump's costs by crate: which code a server's instructions and last-level code
//! misses per flow are spent in (`instructions --by-crate`).
//!
//! Between two servers of the same tools the interesting difference is rarely one function: a
//! server whose code per round is larger evicts everyone's, so the crates both run (hyper,
//! serde, tokio) miss more as well. Summing by crate shows how much of a difference is the
//! extra code itself and how much is shared code fetched again.

use std::collections::BTreeMap;

/// One crate's exclusive costs in a dump.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    pub instructions: u64,
    /// Last-level misses fetching code (`ILmr`); 0 without cache simulation.
    pub code_misses: u64,
}

/// The exclusive costs of a dump summed by the crate each function belongs to (the first path
/// segment of its demangled name, `<T as Trait>::f` counted to `T`'s crate); a function with no
/// path, such as libc's, counts to its object file.
pub fn by_crate(dump: &str) -> Result<BTreeMap<String, Cost>, String> {
    // The columns of `Ir` and `ILmr` among a cost line's values (after its position).
    let mut columns: Option<(Option<usize>, Option<usize>)> = None;
    // Names are compressed: `fn=(7) name` the first time, `fn=(7)` after.
    let mut functions: BTreeMap<&str, &str> = BTreeMap::new();
    let mut objects: BTreeMap<&str, &str> = BTreeMap::new();
    let mut object = "";
    let mut owner = "";
    let mut after_call = false;
    let mut costs: BTreeMap<&str, Cost> = BTreeMap::new();
    for line in dump.lines() {
        if let Some(list) = line.strip_prefix("events:") {
            let events: Vec<&str> = list.split_whitespace().collect();
            let at = |name: &str| events.iter().position(|event| *event == name);
            columns = Some((at("Ir"), at("ILmr")));
        } else if let Some(rest) = line.strip_prefix("ob=") {
            object = named(rest, &mut objects);
        } else if let Some(rest) = line.strip_prefix("cob=") {
            named(rest, &mut objects);
        } else if let Some(rest) = line.strip_prefix("fn=") {
            let name = named(rest, &mut functions);
            owner = crate_of(name).unwrap_or_else(|| file_name(object));
        } else if let Some(rest) = line.strip_prefix("cfn=") {
            named(rest, &mut functions);
        } else if line.starts_with("calls=") {
            // The cost line after a call is the callee's inclusive cost, not this function's.
            after_call = true;
        } else if line.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c)) {
            if std::mem::take(&mut after_call) {
                continue;
            }
            let (instructions, code_misses) =
                columns.ok_or("a cost line before the events line")?;
            // The first field is the position (a line number, possibly relative).
            let values: Vec<&str> = line.split_whitespace().skip(1).collect();
            let value = |column: Option<usize>| -> Result<u64, String> {
                match column.and_then(|i| values.get(i)) {
                    Some(text) => text.parse().map_err(|e| format!("`{line}`: {e}")),
                    None => Ok(0),
                }
            };
            let cost = costs.entry(owner).or_default();
            cost.instructions += value(instructions)?;
            cost.code_misses += value(code_misses)?;
        }
    }
    Ok(costs
        .into_iter()
        .map(|(owner, cost)| (owner.to_owned(), cost))
        .collect())
}

/// `(7) name` defines id 7 as `name`; `(7)` refers to it.
fn named<'a>(rest: &'a str, names: &mut BTreeMap<&'a str, &'a str>) -> &'a str {
    let Some(rest) = rest.strip_prefix('(') else {
        return rest;
    };
    let Some((id, name)) = rest.split_once(')') else {
        return rest;
    };
    let name = name.trim_start();
    if name.is_empty() {
        names.get(id).copied().unwrap_or("")
    } else {
        names.insert(id, name);
        name
    }
}

/// The crate a demangled Rust name belongs to, or `None` for a name with no path.
fn crate_of(name: &str) -> Option<&str> {
    let name = name.trim_start_matches(['<', '&', '*']);
    let name = name.strip_prefix("dyn ").unwrap_or(name);
    let name = name.strip_prefix("mut ").unwrap_or(name);
    let (first, _) = name.split_once("::")?;
    let is_path = !first.is_empty() && first.chars().all(|c| c.is_alphanumeric() || c == '_');
    is_path.then_some(first)
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: &str = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n";

    #[test]
    fn exclusive_costs_sum_by_crate_and_call_costs_are_left_out() {
        let dump = format!(
            "{EVENTS}ob=(1) /bin/server\nfn=(1) mrtr::seal::Sealer::open\n10 100 0 0 0 0 0 7\n\
             +2 50 0 0 0 0 0 3\ncfn=(2) <hyper::proto::h1::Conn as Foo>::poll\ncalls=1 5\n\
             12 9999 0 0 0 0 0 999\nfn=(2)\n5 40 0 0 0 0 0 1\n\
             fn=(3) mrtr::bind::bind_digest\n* 10\ncob=(2) /usr/lib/libc.so.6\n\
             cfn=(4) memcpy\ncalls=1 1\n1 30\nob=(2)\nfn=(4)\n1 30 0 0 0 0 0 2\n"
        );
        let costs = by_crate(&dump).unwrap();
        assert_eq!(
            costs["mrtr"],
            Cost {
                instructions: 160,
                code_misses: 10
            }
        );
        assert_eq!(
            costs["hyper"],
            Cost {
                instructions: 40,
                code_misses: 1
            }
        );
        assert_eq!(
            costs["libc.so.6"],
            Cost {
                instructions: 30,
                code_misses: 2
            }
        );
        assert_eq!(costs.len(), 3);
    }

    #[test]
    fn without_cache_simulation_misses_are_zero() {
        let costs = by_crate("events: Ir\nfn=(1) tokio::spawn\n3 12\n").unwrap();
        assert_eq!(
            costs["tokio"],
            Cost {
                instructions: 12,
                code_misses: 0
            }
        );
    }

    #[test]
    fn names_without_a_crate_path_are_not_taken_for_one() {
        assert_eq!(
            crate_of("<&mut serde_json::Deserializer as X>::f"),
            Some("serde_json")
        );
        assert_eq!(crate_of("<dyn core::any::Any>::is"), Some("core"));
        assert_eq!(crate_of("memcpy"), None);
        assert_eq!(crate_of("0x0000000000401000"), None);
        assert_eq!(crate_of("<{closure} as Fn>::call"), None);
    }

    #[test]
    fn a_cost_line_before_the_events_is_an_error() {
        assert!(by_crate("fn=(1) a::b\n1 2\n").is_err());
    }
}
