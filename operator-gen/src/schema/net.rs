//! std's network addresses (`std::net` / `core::net`), and ipnet's networks, as serde_json
//! carries them: strings,
//! written with `Display` and read back with `FromStr`. Each gets a pattern that admits
//! everything `Display` writes and nothing `FromStr` refuses, so an object the API server
//! admits is one the operator can read, and an address the operator writes is admitted.
//!
//! For the addresses themselves the pattern is exactly what `FromStr` reads: IPv4 as four
//! decimal numbers 0 to 255 without leading zeros; IPv6 as up to eight groups of one to
//! four hex digits (either case), with at most one `::` standing for one group or more,
//! and an IPv4 address in the last 32 bits (`::ffff:192.0.2.1`, which `Display` writes for
//! IPv4-mapped addresses). Ports and IPv6 scope ids are held to what `Display` writes, a
//! decimal number without leading zeros within `u16` / `u32`: `FromStr` also reads
//! `:0080`, which nobody writes and the schema refuses. No `format`: Kubernetes knows
//! `ipv4` and `ipv6` but has none for "either", and a `format` on a map's key type could
//! not be checked (a pattern can, by a CEL rule on the keys).

use crate::api::apiextensions::v1::JSONSchemaProps;

/// The schema of `name`, one of `std::net`'s address types, or `None` for another name.
pub(super) fn schema(name: &str) -> Option<JSONSchemaProps> {
    let (body, max_length) = match name {
        "Ipv4Addr" => (ipv4(), IPV4_MAX),
        "Ipv6Addr" => (ipv6(), IPV6_MAX),
        "IpAddr" => (format!("{}|{}", ipv4(), ipv6()), IPV6_MAX),
        "SocketAddrV4" => (socket_v4(), SOCKET_V4_MAX),
        "SocketAddrV6" => (socket_v6(), SOCKET_V6_MAX),
        "SocketAddr" => (format!("{}|{}", socket_v4(), socket_v6()), SOCKET_V6_MAX),
        _ => return None,
    };
    Some(string_of(&body, max_length))
}

/// A string schema of exactly the strings `body` matches, at most `max_length` long.
fn string_of(body: &str, max_length: i64) -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some("string".into()),
        pattern: Some(format!("^({body})$")),
        max_length: Some(max_length),
        ..Default::default()
    }
}

/// The schema of `name`, one of ipnet's networks (`Ipv4Net`, `Ipv6Net`, `IpNet`), or `None`
/// for another name. ipnet writes an address, `/` and the prefix length, and reads more than
/// it writes (leading zeros in IPv4 numbers and in the prefix length); the pattern admits
/// the address as std reads it and the prefix length without leading zeros.
pub(super) fn network_schema(name: &str) -> Option<JSONSchemaProps> {
    let v4 = format!("{}/{}", ipv4(), decimal_up_to(32));
    let v6 = format!("({})/{}", ipv6(), decimal_up_to(128));
    let (body, max_length) = match name {
        "Ipv4Net" => (v4, IPV4_MAX + 3),
        "Ipv6Net" => (v6, IPV6_MAX + 4),
        "IpNet" => (format!("{v4}|{v6}"), IPV6_MAX + 4),
        _ => return None,
    };
    Some(string_of(&body, max_length))
}

/// `255.255.255.255`
const IPV4_MAX: i64 = 15;
/// `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`: six zero-padded groups and an IPv4
/// address, the longest form `FromStr` reads.
const IPV6_MAX: i64 = 45;
/// `255.255.255.255:65535`
const SOCKET_V4_MAX: i64 = IPV4_MAX + 6;
/// `[` IPv6 `%4294967295]:65535`
const SOCKET_V6_MAX: i64 = 1 + IPV6_MAX + "%4294967295]:65535".len() as i64;

/// One group of an IPv6 address.
const HEX: &str = "[0-9a-fA-F]{1,4}";

/// A decimal number from 0 to `max` without leading zeros, as a regular expression (one
/// group).
pub(super) fn decimal_up_to(max: u64) -> String {
    let digits: Vec<u8> = max.to_string().bytes().map(|b| b - b'0').collect();
    let any = |n: usize| match n {
        0 => String::new(),
        1 => "[0-9]".to_string(),
        n => format!("[0-9]{{{n}}}"),
    };
    let range = |lo: u8, hi: u8| {
        if lo == hi {
            lo.to_string()
        } else {
            format!("[{lo}-{hi}]")
        }
    };
    let mut alternatives = Vec::new();
    // As long as `max`, below it: its first `i` digits, a smaller one, then any.
    for i in 0..digits.len() {
        let lo = u8::from(i == 0);
        if digits[i] > lo {
            let prefix: String = digits[..i].iter().map(u8::to_string).collect();
            alternatives.push(format!(
                "{prefix}{}{}",
                range(lo, digits[i] - 1),
                any(digits.len() - i - 1)
            ));
        }
    }
    alternatives.push(max.to_string());
    // Shorter than `max`.
    match digits.len() {
        0 | 1 => {}
        2 => alternatives.push("[1-9]".into()),
        3 => alternatives.push("[1-9][0-9]?".into()),
        n => alternatives.push(format!("[1-9][0-9]{{0,{}}}", n - 2)),
    }
    if max > 0 {
        alternatives.push("0".into());
    }
    format!("({})", alternatives.join("|"))
}

fn ipv4() -> String {
    let octet = decimal_up_to(255);
    format!("{octet}(\\.{octet}){{3}}")
}

/// `n` groups each followed by a colon, `min` to `max` of them.
fn groups(min: usize, max: usize) -> String {
    match (min, max) {
        (_, 0) => String::new(),
        (1, 1) => format!("{HEX}:"),
        (min, max) if min == max => format!("({HEX}:){{{min}}}"),
        (min, max) => format!("({HEX}:){{{min},{max}}}"),
    }
}

fn ipv6() -> String {
    let v4 = ipv4();
    let mut forms = vec![
        format!("{}{HEX}", groups(7, 7)),
        format!("{}{v4}", groups(6, 6)),
    ];
    // With `::` after `head` groups: it stands for one group or more, so at most
    // `7 - head` groups follow, two of them possibly as an IPv4 address.
    for head in 0..=7 {
        let before = match head {
            0 => String::new(),
            h => format!("{}{HEX}", groups(h - 1, h - 1)),
        };
        let after = match 7 - head {
            0 => String::new(),
            1 => format!("({HEX})?"),
            n => format!("({}({HEX}(:{HEX})?|{v4}))?", groups(0, n - 2)),
        };
        forms.push(format!("{before}::{after}"));
    }
    forms.join("|")
}

fn port() -> String {
    decimal_up_to(u64::from(u16::MAX))
}

fn socket_v4() -> String {
    format!("{}:{}", ipv4(), port())
}

fn socket_v6() -> String {
    format!(
        "\\[({})(%{})?\\]:{}",
        ipv6(),
        decimal_up_to(u64::from(u32::MAX)),
        port()
    )
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
    use std::str::FromStr;
    use std::sync::LazyLock;

    use proptest::prelude::*;
    use regex::Regex;

    use super::*;

    const NAMES: [&str; 6] = [
        "Ipv4Addr",
        "Ipv6Addr",
        "IpAddr",
        "SocketAddrV4",
        "SocketAddrV6",
        "SocketAddr",
    ];

    const NETWORKS: [&str; 3] = ["Ipv4Net", "Ipv6Net", "IpNet"];

    fn schema_of(name: &str) -> JSONSchemaProps {
        schema(name).or_else(|| network_schema(name)).unwrap()
    }

    /// Each type's pattern, compiled once for all the cases.
    fn pattern(name: &str) -> &'static Regex {
        static PATTERNS: LazyLock<Vec<(&str, Regex)>> = LazyLock::new(|| {
            NAMES
                .iter()
                .chain(&NETWORKS)
                .map(|n| (*n, Regex::new(&schema_of(n).pattern.unwrap()).unwrap()))
                .collect()
        });
        &PATTERNS.iter().find(|(n, _)| *n == name).unwrap().1
    }

    #[test]
    fn decimals_up_to_a_bound_are_exactly_the_numbers_up_to_it() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for max in [
            0,
            1,
            5,
            9,
            10,
            11,
            19,
            20,
            99,
            100,
            101,
            255,
            65535,
            1000,
            u64::MAX,
        ] {
            let re = Regex::new(&format!("^{}$", decimal_up_to(max))).unwrap();
            let mut probes: Vec<String> = (0..=300u64).map(|n| n.to_string()).collect();
            for near in [max.saturating_sub(2), max.saturating_sub(1), max] {
                probes.push(near.to_string());
            }
            probes.extend(["00", "01", "007", "-1", "", "1 "].map(String::from));
            probes.push(format!("{max}0"));
            probes.push(format!("{}", u128::from(max) + 1));
            for _ in 0..20_000 {
                let n = next() >> (next() % 64);
                probes.push(n.to_string());
            }
            for p in probes {
                let want = !p.starts_with('0') || p == "0";
                let want = want && p.parse::<u64>().is_ok_and(|n| n <= max);
                assert_eq!(re.is_match(&p), want, "{p} against {max}");
            }
        }
    }

    #[test]
    fn decimal_up_to_admits_exactly_the_numbers_to_max() {
        for max in [0, 1, 9, 10, 19, 99, 100, 255, 1000, 1009, 65535] {
            let re = Regex::new(&format!("^{}$", decimal_up_to(max))).unwrap();
            for n in 0..=70_000u64 {
                assert_eq!(re.is_match(&n.to_string()), n <= max, "{n} against {max}");
            }
            for s in ["", "00", "01", "-1", "+1", " 1"] {
                assert!(!re.is_match(s), "{s:?} against {max}");
            }
        }
        let re = Regex::new(&format!("^{}$", decimal_up_to(u64::from(u32::MAX)))).unwrap();
        for n in [
            0u64,
            9,
            4_294_967_295,
            4_294_967_289,
            3_999_999_999,
            999_999_999,
        ] {
            assert!(re.is_match(&n.to_string()), "{n}");
        }
        for n in [
            4_294_967_296u64,
            4_294_967_300,
            5_000_000_000,
            10_000_000_000,
        ] {
            assert!(!re.is_match(&n.to_string()), "{n}");
        }
    }

    /// The pieces addresses are made of, and pieces that break them.
    const PIECES: &[&str] = &[
        "0",
        "1",
        "9",
        "01",
        "00",
        "10",
        "99",
        "255",
        "256",
        "25",
        "a",
        "F",
        "ff",
        "fFfF",
        "0000",
        "00001",
        "12345",
        ":",
        ":",
        "::",
        ".",
        ".",
        "%",
        "[",
        "]",
        "65535",
        "65536",
        "4294967295",
        "4294967296",
        "1.2.3.4",
        "::ffff:",
        " ",
        "g",
        "/",
        "/0",
        "/8",
        "/08",
        "/32",
        "/33",
        "/128",
        "/129",
    ];

    /// An address in a form people write: as `Display` writes it (also with many zeros, and
    /// IPv4-mapped), in upper case, or with every group written out.
    fn written_address() -> impl Strategy<Value = String> {
        let forms = (any::<u32>(), any::<u128>(), 0u128..0x1_0000_0000, 0..6u8);
        forms.prop_map(|(v4, v6, small, form)| match form {
            0 => Ipv4Addr::from(v4).to_string(),
            1 => Ipv6Addr::from(v6).to_string(),
            2 => Ipv6Addr::from(small).to_string(),
            3 => Ipv6Addr::from(small | 0xffff_0000_0000).to_string(),
            4 => Ipv6Addr::from(v6).to_string().to_uppercase(),
            _ => Ipv6Addr::from(v6)
                .segments()
                .iter()
                .map(|g| format!("{g:04x}"))
                .collect::<Vec<_>>()
                .join(":"),
        })
    }

    /// Strings of those pieces, and addresses with a prefix length, a scope or a port, as
    /// written or with one edit (a character left out, a piece put in).
    fn address_like() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(PIECES.to_vec());
        let random = prop::collection::vec(piece.clone(), 1..14).prop_map(|p| p.concat());
        let inner = prop::sample::select(vec!["", "", "%1", "%4294967295", "%4294967296", "%01"]);
        let outer = prop::sample::select(vec![
            "", "", "/0", "/24", "/08", "/32", "/33", "/64", "/128", "/129", ":80", ":080",
            ":65535", ":65536",
        ]);
        let structured = (
            written_address(),
            any::<bool>(),
            inner,
            outer,
            0..3u8,
            any::<prop::sample::Index>(),
            piece,
        )
            .prop_map(|(address, bracket, inner, outer, edit, at, piece)| {
                let mut s = if bracket {
                    format!("[{address}{inner}]{outer}")
                } else {
                    format!("{address}{outer}")
                };
                let at = at.index(s.len() + 1);
                match edit {
                    1 if at < s.len() => {
                        s.remove(at);
                    }
                    2 => s.insert_str(at, piece),
                    _ => {}
                }
                s
            });
        prop_oneof![random, structured]
    }

    /// For the addresses, the pattern admits exactly what `FromStr` reads; for socket
    /// addresses, only what it reads, and all that `Display` writes of it.
    fn agrees<T: FromStr + ToString>(name: &str, s: &str, exact: bool) {
        let re = pattern(name);
        let parsed = s.parse::<T>().ok();
        let matched = re.is_match(s);
        if exact {
            assert_eq!(matched, parsed.is_some(), "{name} {s:?}");
        } else if matched {
            assert!(
                parsed.is_some(),
                "{name} admits {s:?}, which FromStr refuses"
            );
        }
        if let Some(value) = parsed {
            let written = value.to_string();
            assert!(
                re.is_match(&written),
                "{name} refuses {written:?} (from {s:?})"
            );
        }
        if matched {
            let max = schema_of(name).max_length.unwrap();
            assert!(s.len() as i64 <= max, "{name} {s:?} over {max}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn the_patterns_agree_with_from_str(s in address_like()) {
            agrees::<Ipv4Addr>("Ipv4Addr", &s, true);
            agrees::<Ipv6Addr>("Ipv6Addr", &s, true);
            agrees::<IpAddr>("IpAddr", &s, true);
            agrees::<SocketAddrV4>("SocketAddrV4", &s, false);
            agrees::<SocketAddrV6>("SocketAddrV6", &s, false);
            agrees::<SocketAddr>("SocketAddr", &s, false);
            agrees::<ipnet::Ipv4Net>("Ipv4Net", &s, false);
            agrees::<ipnet::Ipv6Net>("Ipv6Net", &s, false);
            agrees::<ipnet::IpNet>("IpNet", &s, false);
        }

        #[test]
        fn what_ipnet_writes_is_admitted(
            v4 in any::<u32>(),
            v6 in any::<u128>(),
            small in 0u128..0x1_0000_0000,
            p4 in 0u8..=32,
            p6 in 0u8..=128,
        ) {
            let v4 = ipnet::Ipv4Net::new(Ipv4Addr::from(v4), p4).unwrap();
            let mapped = Ipv6Addr::from(small | 0xffff_0000_0000);
            for v6 in [Ipv6Addr::from(v6), Ipv6Addr::from(small), mapped] {
                let v6 = ipnet::Ipv6Net::new(v6, p6).unwrap();
                for (name, s) in [
                    ("Ipv4Net", v4.to_string()),
                    ("Ipv6Net", v6.to_string()),
                    ("IpNet", ipnet::IpNet::V4(v4).to_string()),
                    ("IpNet", ipnet::IpNet::V6(v6).to_string()),
                ] {
                    prop_assert!(pattern(name).is_match(&s), "{} refuses {:?}", name, s);
                }
            }
        }

        #[test]
        fn what_display_writes_is_admitted(
            v4 in any::<u32>(),
            v6 in any::<u128>(),
            small in 0u128..0x1_0000_0000,
            port in any::<u16>(),
            scope in any::<u32>(),
        ) {
            let v4 = Ipv4Addr::from(v4);
            // Mapped and compatible addresses are written in their own forms.
            for v6 in [Ipv6Addr::from(v6), Ipv6Addr::from(small), Ipv6Addr::from(small | 0xffff_0000_0000)] {
                for (name, s) in [
                    ("Ipv4Addr", v4.to_string()),
                    ("Ipv6Addr", v6.to_string()),
                    ("IpAddr", IpAddr::V4(v4).to_string()),
                    ("IpAddr", IpAddr::V6(v6).to_string()),
                    ("SocketAddrV4", SocketAddrV4::new(v4, port).to_string()),
                    ("SocketAddrV6", SocketAddrV6::new(v6, port, 0, scope).to_string()),
                    ("SocketAddrV6", SocketAddrV6::new(v6, port, 0, 0).to_string()),
                    ("SocketAddr", SocketAddr::new(IpAddr::V4(v4), port).to_string()),
                    ("SocketAddr", SocketAddr::new(IpAddr::V6(v6), port).to_string()),
                ] {
                    prop_assert!(pattern(name).is_match(&s), "{} refuses {:?}", name, s);
                }
            }
        }
    }

    #[test]
    fn the_forms_at_the_edges() {
        for (name, s, admitted) in [
            ("Ipv4Addr", "0.0.0.0", true),
            ("Ipv4Addr", "255.255.255.255", true),
            ("Ipv4Addr", "01.2.3.4", false),
            ("Ipv4Addr", "1.2.3", false),
            ("Ipv6Addr", "::", true),
            ("Ipv6Addr", "1:2:3:4:5:6:7::", true),
            ("Ipv6Addr", "1:2:3:4:5:6:7:8::", false),
            ("Ipv6Addr", "1:2:3:4:5::1.2.3.4", true),
            ("Ipv6Addr", "1:2:3:4:5:6::1.2.3.4", false),
            ("Ipv6Addr", "::ffff:192.0.2.1", true),
            ("Ipv6Addr", "2001:DB8::1", true),
            ("Ipv6Addr", "fe80::1%1", false),
            (
                "Ipv6Addr",
                "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255",
                true,
            ),
            ("IpAddr", "192.0.2.1", true),
            ("IpAddr", "2001:db8::1", true),
            ("SocketAddrV4", "192.0.2.1:65535", true),
            ("SocketAddrV4", "192.0.2.1:65536", false),
            ("SocketAddrV4", "192.0.2.1:080", false),
            ("SocketAddrV6", "[::1%4294967295]:80", true),
            ("SocketAddrV6", "[::1%4294967296]:80", false),
            ("SocketAddrV6", "::1:80", false),
            ("SocketAddr", "[2001:db8::1]:443", true),
            ("SocketAddr", "192.0.2.1:443", true),
            ("SocketAddr", "example.com:443", false),
            ("Ipv4Net", "10.0.0.0/8", true),
            ("Ipv4Net", "10.0.0.1/32", true),
            ("Ipv4Net", "10.0.0.0/33", false),
            ("Ipv4Net", "10.0.0.0/08", false),
            ("Ipv4Net", "10.0.0.0", false),
            ("Ipv6Net", "::/0", true),
            ("Ipv6Net", "2001:db8::/128", true),
            ("Ipv6Net", "2001:db8::/129", false),
            ("IpNet", "0.0.0.0/0", true),
            ("IpNet", "fd00::/8", true),
        ] {
            assert_eq!(pattern(name).is_match(s), admitted, "{name} {s:?}");
        }
        assert!(schema("Ipv5Addr").is_none());
        // What a pattern costs the API server to hold and a reader to see.
        assert!(network_schema("Ipv4Addr").is_none());
        for name in NAMES.iter().chain(&NETWORKS) {
            let length = schema_of(name).pattern.unwrap().len();
            assert!(length < 2_500, "{name}: {length}");
        }
    }
}
