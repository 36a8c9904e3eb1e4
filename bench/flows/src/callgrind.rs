//! A callgrind dump's costs by crate: which code a server's instructions and first-level code
//! misses per flow are spent in (`instructions --by-crate`; by part of a round and by the
//! runtime's functions too).
//!
//! Between two servers of the same tools the interesting difference is rarely one function: a
//! server whose code per round is larger evicts everyone's, so the crates both run (hyper,
//! serde, tokio) miss more as well. Summing by crate shows how much of a difference is the
//! extra code itself and how much is shared code fetched again.
//!
//! A dump taken with `--dump-instr=yes` also gives each cost line the address of its
//! instruction, and so the code a server ran: the distinct 64-byte lines its executed
//! instructions sit in (`instructions --footprint`). What a round runs beyond the first level
//! cache is fetched again on every round; that count is what a larger hot path costs. The
//! distinct 4 KiB pages those lines sit in are what the instruction TLB has to map: the same
//! code spread thinly over more pages costs translations as well as fetches.

use std::collections::{BTreeMap, HashSet};

use crate::parts;

/// One crate's exclusive costs in a dump.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    pub instructions: u64,
    /// First-level misses fetching code (`I1mr`): lines the function ran after the rest of the
    /// round had evicted them. A round's hot path is many times the 32 KiB cache, so this is
    /// about the code's size in lines times the rounds; 0 without cache simulation.
    pub code_misses: u64,
    /// Distinct 64-byte lines of code executed; 0 without instruction positions.
    pub code_lines: u64,
    /// Distinct 4 KiB pages those lines sit in.
    pub code_pages: u64,
}

/// The size of a cache line, the unit code is fetched in.
pub const CODE_LINE: u64 = 64;

/// The size of a page, the unit code is mapped in.
pub const CODE_PAGE: u64 = 4096;

/// `lines` code lines in KiB.
pub fn code_kib(lines: u64) -> u64 {
    lines * CODE_LINE / 1024
}

/// The exclusive costs of a dump summed by the crate each function belongs to (the first path
/// segment of its demangled name, `<T as Trait>::f` counted to `T`'s crate); a function with no
/// path, such as libc's, counts to its object file.
pub fn by_crate(dump: &str) -> Result<BTreeMap<String, Cost>, String> {
    costs_by(dump, |name, object| {
        crate_of(name).unwrap_or_else(|| file_name(object))
    })
}

/// The exclusive costs of a dump summed by the part of a round each function is in
/// ([`crate::parts`]).
pub fn by_part(dump: &str) -> Result<BTreeMap<String, Cost>, String> {
    costs_by(dump, |name, _| parts::part_of(name, crate_of(name)))
}

/// The exclusive costs of the dump's functions that some part of a round names
/// ([`crate::parts`]; everything else left out), by function: which of the runtime's functions
/// its parts' code and misses are, the list a change to the round's code is read against.
pub fn by_function(dump: &str) -> Result<BTreeMap<String, Cost>, String> {
    let mut costs = costs_by(dump, |name, _| name)?;
    costs.retain(|name, _| parts::part_of(name, crate_of(name)) != parts::EVERYTHING_ELSE);
    Ok(costs)
}

/// The distinct pages of code a dump's executed instructions sit in, whoever's they are.
pub fn code_pages(dump: &str) -> Result<u64, String> {
    let all = costs_by(dump, |_, _| "")?;
    Ok(all.values().map(|cost| cost.code_pages).sum())
}

/// The exclusive costs of a dump summed by `owner(function name, object file)`.
fn costs_by<F>(dump: &str, owner_of: F) -> Result<BTreeMap<String, Cost>, String>
where
    F: for<'a> Fn(&'a str, &'a str) -> &'a str,
{
    // The columns of `Ir` and `I1mr` among a cost line's values (after its position).
    let mut columns: Option<(Option<usize>, Option<usize>)> = None;
    // Names are compressed: `fn=(7) name` the first time, `fn=(7)` after.
    let mut functions: BTreeMap<&str, &str> = BTreeMap::new();
    let mut objects: BTreeMap<&str, &str> = BTreeMap::new();
    let mut object = "";
    let mut owner = "";
    let mut after_call = false;
    let mut costs: BTreeMap<&str, Cost> = BTreeMap::new();
    // `positions: instr line` puts an address before the line number on every cost line;
    // without the header, a cost line has one position, its line number.
    let mut addressed = false;
    let mut positions = 1;
    let mut address = 0u64;
    let mut lines: BTreeMap<&str, HashSet<(&str, u64)>> = BTreeMap::new();
    for line in dump.lines() {
        if let Some(list) = line.strip_prefix("positions:") {
            addressed = list.split_whitespace().next() == Some("instr");
            positions = list.split_whitespace().count();
        } else if let Some(list) = line.strip_prefix("events:") {
            let events: Vec<&str> = list.split_whitespace().collect();
            let at = |name: &str| events.iter().position(|event| *event == name);
            columns = Some((at("Ir"), at("I1mr")));
        } else if let Some(rest) = line.strip_prefix("ob=") {
            object = named(rest, &mut objects);
        } else if let Some(rest) = line.strip_prefix("cob=") {
            named(rest, &mut objects);
        } else if let Some(rest) = line.strip_prefix("fn=") {
            let name = named(rest, &mut functions);
            owner = owner_of(name, object);
        } else if let Some(rest) = line.strip_prefix("cfn=") {
            named(rest, &mut functions);
        } else if line.starts_with("calls=") {
            // The cost line after a call is the callee's inclusive cost, not this function's.
            after_call = true;
        } else if line.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c)) {
            let mut fields = line.split_whitespace();
            if addressed {
                let position = fields.next().unwrap_or("*");
                address = moved_to(address, position).ok_or(format!("`{line}`: bad address"))?;
            }
            // Past the other positions (the line number, possibly relative) to the values.
            let values: Vec<&str> = fields
                .skip(positions.saturating_sub(usize::from(addressed)))
                .collect();
            if std::mem::take(&mut after_call) {
                continue;
            }
            let (instructions, code_misses) =
                columns.ok_or("a cost line before the events line")?;
            let value = |column: Option<usize>| -> Result<u64, String> {
                match column.and_then(|i| values.get(i)) {
                    Some(text) => text.parse().map_err(|e| format!("`{line}`: {e}")),
                    None => Ok(0),
                }
            };
            let executed = value(instructions)?;
            let cost = costs.entry(owner).or_default();
            cost.instructions += executed;
            cost.code_misses += value(code_misses)?;
            if addressed && executed > 0 {
                lines
                    .entry(owner)
                    .or_default()
                    .insert((object, address / CODE_LINE));
            }
        }
    }
    Ok(costs
        .into_iter()
        .map(|(owner, mut cost)| {
            if let Some(set) = lines.get(owner) {
                cost.code_lines = set.len() as u64;
                let pages: HashSet<_> = set
                    .iter()
                    .map(|(object, line)| (object, line * CODE_LINE / CODE_PAGE))
                    .collect();
                cost.code_pages = pages.len() as u64;
            }
            (owner.to_owned(), cost)
        })
        .collect())
}

/// The address a position field names: absolute (`0x4a10`), relative to the last one (`+3`,
/// `-0x10`), or the same (`*`).
fn moved_to(last: u64, position: &str) -> Option<u64> {
    let number = |text: &str| match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    };
    match position.as_bytes().first()? {
        b'*' => Some(last),
        b'+' => last.checked_add(number(&position[1..])?),
        b'-' => last.checked_sub(number(&position[1..])?),
        _ => number(position),
    }
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
pub fn crate_of(name: &str) -> Option<&str> {
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
            "{EVENTS}ob=(1) /bin/server\nfn=(1) mrtr::seal::Sealer::open\n10 100 0 0 7 0 0 70\n\
             +2 50 0 0 3 0 0 30\ncfn=(2) <hyper::proto::h1::Conn as Foo>::poll\ncalls=1 5\n\
             12 9999 0 0 999\nfn=(2)\n5 40 0 0 1 0 0 10\n\
             fn=(3) mrtr::bind::bind_digest\n* 10\ncob=(2) /usr/lib/libc.so.6\n\
             cfn=(4) memcpy\ncalls=1 1\n1 30\nob=(2)\nfn=(4)\n1 30 0 0 2 0 0 20\n"
        );
        let costs = by_crate(&dump).unwrap();
        assert_eq!(
            costs["mrtr"],
            Cost {
                instructions: 160,
                code_misses: 10,
                code_lines: 0,
                code_pages: 0
            }
        );
        assert_eq!(
            costs["hyper"],
            Cost {
                instructions: 40,
                code_misses: 1,
                code_lines: 0,
                code_pages: 0
            }
        );
        assert_eq!(
            costs["libc.so.6"],
            Cost {
                instructions: 30,
                code_misses: 2,
                code_lines: 0,
                code_pages: 0
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
                code_misses: 0,
                code_lines: 0,
                code_pages: 0
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

    /// With instruction positions, each crate counts the distinct code lines its executed
    /// instructions sit in: relative and repeated addresses followed, a call's cost line moving
    /// the address but not counting, lines of another object told apart, instructions that
    /// never ran left out.
    #[test]
    fn addressed_dumps_count_the_code_lines_each_crate_ran() {
        let dump = "positions: instr line\nevents: Ir\nob=(1) /bin/server\n\
             fn=(1) mrtr::seal::Sealer::open\n0x1000 10 4\n+8 11 2\n+0x38 12 1\n* 12 1\n\
             +0x40 13 0\ncfn=(2) hyper::poll\ncalls=1 0x9000\n+4 14 500\n-0x84 9 1\n\
             fn=(2)\n0x9000 1 3\nob=(2) /usr/lib/libc.so.6\nfn=(3) mrtr::copy\n0x1000 1 1\n";
        let costs = by_crate(dump).unwrap();
        // 0x1000, 0x1008 (line 0x40), 0x1040 (line 0x41), 0x1080 ran nothing, the call at
        // 0x1084 is the callee's, 0x1000 again: two lines in /bin/server, one in libc.
        assert_eq!(costs["mrtr"].code_lines, 3);
        assert_eq!(costs["mrtr"].instructions, 10);
        assert_eq!(costs["hyper"].code_lines, 1);
        // Two lines in one page of /bin/server, one in a page of libc.
        assert_eq!(costs["mrtr"].code_pages, 2);
    }

    /// Pages are counted once however many functions, of whatever crate, ran code in them.
    #[test]
    fn code_pages_are_distinct_pages_of_each_object() {
        let dump = "positions: instr line\nevents: Ir\nob=(1) /bin/server\n\
             fn=(1) mrtr::a\n0x1000 1 1\n+0xfc0 2 1\nfn=(2) hyper::b\n0x1040 1 1\n\
             +0x1000 2 1\nfn=(3) tokio::c\n0x1080 1 0\nob=(2) /usr/lib/libc.so.6\n\
             fn=(4) memcpy\n0x1000 1 1\n";
        // /bin/server: 0x1000 and 0x1fc0 (page 1), 0x1040 (page 1), 0x2040 (page 2);
        // tokio's instruction never ran; libc's page 1 is another page.
        assert_eq!(code_pages(dump), Ok(3));
        assert_eq!(by_crate(dump).unwrap()["mrtr"].code_pages, 1);
    }

    /// `--dump-line=no` leaves the address as the only position: the values follow it.
    #[test]
    fn a_dump_addressed_without_line_numbers_reads_its_values() {
        let dump = "positions: instr\nevents: Ir I1mr\nfn=(1) mrtr::a\n0x40 5 2\n+0x40 3\n";
        let costs = by_crate(dump).unwrap();
        assert_eq!(
            costs["mrtr"],
            Cost {
                instructions: 8,
                code_misses: 2,
                code_lines: 2,
                code_pages: 1
            }
        );
    }

    /// The same dump by part: the runtime's functions to their features, a generic instantiated
    /// for a runtime type to the type's part, the rest together.
    #[test]
    fn addressed_dumps_count_the_code_lines_each_part_ran() {
        let dump = "positions: instr line\nevents: Ir\nob=(1) /bin/server\n\
             fn=(1) mrtr::seal::claims::encode\n0x1000 10 4\n+0x40 11 2\n\
             fn=(2) core::ptr::drop_in_place<mrtr::machine::round::Io>\n0x2000 1 3\n\
             fn=(3) mrtr::seal::Sealer::seal\n0x3000 1 1\n\
             fn=(4) hyper::proto::h1::role::Server::parse\n0x4000 1 5\n+0x80 2 5\n";
        let costs = by_part(dump).unwrap();
        let lines = |part: &str| costs[part].code_lines;
        assert_eq!(lines("claims"), 2);
        assert_eq!(lines("round machinery"), 1);
        assert_eq!(lines("seal and token"), 1);
        assert_eq!(lines(parts::EVERYTHING_ELSE), 2);
        assert_eq!(costs[parts::EVERYTHING_ELSE].instructions, 10);
    }

    /// By function, only the functions a part names are kept, each with its own lines.
    #[test]
    fn addressed_dumps_count_the_code_lines_of_each_runtime_function() {
        let dump = "positions: instr line\nevents: Ir I1mr\nob=(1) /bin/server\n\
             fn=(1) mrtr::seal::claims::encode\n0x1000 10 4 2\n+0x40 11 2 1\n\
             fn=(2) core::ptr::drop_in_place<mrtr::machine::round::Io>\n0x2000 1 3\n\
             fn=(3) hyper::proto::h1::role::Server::parse\n0x4000 1 5 1\n+0x80 2 5\n";
        let costs = by_function(dump).unwrap();
        assert_eq!(
            costs["mrtr::seal::claims::encode"],
            Cost {
                instructions: 6,
                code_misses: 3,
                code_lines: 2,
                code_pages: 1
            }
        );
        assert_eq!(
            costs["core::ptr::drop_in_place<mrtr::machine::round::Io>"].code_lines,
            1
        );
        assert_eq!(costs.len(), 2, "hyper's function is in no part");
    }

    #[test]
    fn positions_move_as_callgrind_writes_them() {
        assert_eq!(moved_to(0x100, "0x4a10"), Some(0x4a10));
        assert_eq!(moved_to(0x100, "+3"), Some(0x103));
        assert_eq!(moved_to(0x100, "-0x10"), Some(0xf0));
        assert_eq!(moved_to(0x100, "*"), Some(0x100));
        assert_eq!(moved_to(0x10, "-0x20"), None);
        assert_eq!(moved_to(0x10, "+x"), None);
    }

    #[test]
    fn a_cost_line_before_the_events_is_an_error() {
        assert!(by_crate("fn=(1) a::b\n1 2\n").is_err());
    }
}
