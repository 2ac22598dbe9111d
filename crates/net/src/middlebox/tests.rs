//! The configuration schema and the `Mb` dispatch.

use super::*;
use rand::SeedableRng;

fn parse(text: &str) -> Result<MiddleboxConfig, toml::de::Error> {
    toml::from_str(text)
}

#[test]
fn a_bare_kind_gives_the_papers_defaults() {
    assert_eq!(
        parse("kind = \"std-proxy\"").unwrap(),
        MiddleboxConfig::StdProxy(StdProxyConfig::default())
    );
    assert_eq!(
        parse("kind = \"delay-injection\"").unwrap(),
        MiddleboxConfig::DelayInjection(DelayInjectionConfig::default())
    );
}

#[test]
fn full_examples_parse_with_units_and_kebab_case_values() {
    let std = parse(
        "kind = \"std-proxy\"\ndup_ack_thresh = 3\ngain = 2.0\ns = 20.0\nalpha_n = 0.9\n\
         alpha_s = 0.9\nx_th_factor = 0.5\nwrtt_gain = 0.125\nwrtt = \"600ms\"\n\
         remove_dup_acks = true",
    )
    .unwrap();
    let MiddleboxConfig::StdProxy(c) = std else {
        panic!("{std:?}")
    };
    assert_eq!(c.wrtt, Some(Dur::from_millis(600)));
    let di = parse(
        "kind = \"delay-injection\"\nmethod = \"rtrd\"\nd0 = \"70ms\"\nn = 5\n\
         direction = \"ack\"\nselect = \"every-nth\"\nselect_every = 2\norder = \"fifo\"",
    )
    .unwrap();
    let MiddleboxConfig::DelayInjection(c) = di else {
        panic!("{di:?}")
    };
    assert_eq!(
        (
            c.method,
            c.d0,
            c.n,
            c.direction,
            c.select,
            c.select_every,
            c.order
        ),
        (
            InjectionMethod::Rtrd,
            Dur::from_millis(70),
            5,
            InjectDirection::Ack,
            Selection::EveryNth,
            2,
            InjectionOrder::Fifo
        )
    );
}

#[test]
fn unknown_fields_and_kinds_are_rejected_by_name() {
    let e = parse("kind = \"std-proxy\"\ngian = 2.0").unwrap_err();
    assert!(e.to_string().contains("gian"), "{e}");
    let e = parse("kind = \"delay-injection\"\nselect = \"psychic\"").unwrap_err();
    assert!(e.to_string().contains("psychic"), "{e}");
    let e = parse("kind = \"snoop\"").unwrap_err();
    assert!(e.to_string().contains("snoop"), "{e}");
}

#[test]
fn configs_round_trip_through_toml() {
    for cfg in [
        MiddleboxConfig::StdProxy(StdProxyConfig {
            wrtt: Some(Dur::from_millis(250)),
            ..StdProxyConfig::default()
        }),
        MiddleboxConfig::DelayInjection(DelayInjectionConfig {
            p: Some(0.25),
            method: InjectionMethod::Rtfd,
            ..DelayInjectionConfig::default()
        }),
    ] {
        let text = toml::to_string(&cfg).unwrap();
        assert_eq!(parse(&text).unwrap(), cfg, "{text}");
    }
}

#[test]
fn mb_dispatches_to_the_configured_box() {
    let rng = SimRng::seed_from_u64(0);
    let mut mb = Mb::new(&MiddleboxConfig::DelayInjection(Default::default()), rng);
    assert!(matches!(mb, Mb::DelayInjection(_)));
    let mut p = Packet::new(1, FlowId(0), spikelab_core::PacketKind::Data, Time::ZERO);
    p.len = 100;
    p.timed = true;
    let mut out = MbOutput::new();
    for _ in 0..3 {
        mb.on_owned_packet(Time::ZERO, p, &mut out);
    }
    // FTFD, N = 3: the third timed packet is held for 100 ms.
    assert_eq!(out.forward.len(), 2);
    assert_eq!(mb.next_wakeup(), Some(Time::ZERO + Dur::from_millis(100)));
    let mut n = 0;
    mb.for_each_held(&mut |_| n += 1);
    assert_eq!(n, 1);
    let std = Mb::new(
        &MiddleboxConfig::StdProxy(Default::default()),
        SimRng::seed_from_u64(0),
    );
    assert!(matches!(std, Mb::StdProxy(_)) && std.next_wakeup().is_none());
}

#[test]
fn a_passed_packet_continues_at_its_place_among_the_pushed_ones() {
    let seg = |seq| {
        let mut p = Packet::new(seq, FlowId(0), spikelab_core::PacketKind::Data, Time::ZERO);
        p.seq = seq;
        p
    };
    let seqs = |out: &MbOutput| out.forward.iter().map(|p| p.seq).collect::<Vec<_>>();
    let mut out = MbOutput::new();
    out.forward.push(seg(1));
    out.pass();
    out.forward.push(seg(3));
    assert_eq!(out.clone().take_pass(), Some(1), "before forward[1]");
    out.resolve_pass(seg(2));
    assert_eq!(seqs(&out), [1, 2, 3]);
    // Resolved once: a second resolve adds nothing, and clear forgets a pass.
    out.resolve_pass(seg(9));
    assert_eq!(seqs(&out), [1, 2, 3]);
    out.pass();
    out.clear();
    out.resolve_pass(seg(9));
    assert!(out.forward.is_empty());
}
