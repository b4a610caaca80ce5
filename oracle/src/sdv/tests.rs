//! Tests of the SDV checker on hand-built kernels.

use super::testkit::*;
use super::*;
use crate::ir::BinOp::*;

fn run(k: &Kernel) -> Report {
    check(k, &SdvOptions::default())
}

fn intra(r: &Report) -> Vec<&Race> {
    r.races.iter().filter(|x| x.scope == RaceScope::IntraBlock).collect()
}

fn rels(r: &Race) -> Vec<IterRelation> {
    r.relations.clone()
}

/// `sh[tid] = 0; x = sh[tid + 1];` with an optional barrier in between.
fn neighbour(barrier: bool) -> Kernel {
    let mut b = Kb::new(Some([64, 1, 1]));
    let sh = b.array("sh", Space::Shared);
    let x = b.local("x");
    let mut body = vec![b.write(sh, tid())];
    if barrier {
        body.push(b.sync());
    }
    body.push(b.read(Some(x), sh, ub(Add, tid(), u(1))));
    b.finish(body)
}

#[test]
fn sdv_straight_line_race() {
    let k = neighbour(false);
    let r = run(&k);
    let races = intra(&r);
    assert_eq!(races.len(), 1, "{r:#?}");
    let race = races[0];
    assert_eq!(race.kind, RaceKind::ReadAfterWrite);
    assert_eq!(rels(race), vec![IterRelation::SameIteration]);
    assert!(!race.assumed);
    // Witness: the reader's tid + 1 is the writer's tid.
    let w = &race.witness;
    assert_eq!(w.threads[1].thread[0] + 1, w.threads[0].thread[0]);
    assert_eq!(w.index, Some(w.threads[0].thread[0] as i64));
    assert_eq!(w.byte_offset, Some(4 * w.threads[0].thread[0] as i64));
}

/// Two reads written at one source place (a macro's expansion, an inlined call), both racing
/// with one write: `one_race_per_place_pair` asks until one of them races and reports that one;
/// the verdict is the same. The reads of two calls of one inlined function (their accesses
/// keep the callee's span, their statements are at the calls) are at two places: both race.
#[test]
fn sdv_one_race_per_place_pair() {
    let kernel = |places: [Span; 2]| {
        let mut b = Kb::new(Some([64, 1, 1]));
        let sh = b.array("sh", Space::Shared);
        let (x, y) = (b.local("x"), b.local("y"));
        let body = vec![
            b.write(sh, tid()),
            b.read(Some(x), sh, ub(Add, tid(), u(1))),
            b.read(Some(y), sh, ub(Add, tid(), u(2))),
        ];
        let mut k = b.finish(body);
        let callee = Span::new(FileId(0), 60, 70);
        for (s, place) in k.body.stmts[1..].iter_mut().zip(places) {
            s.span = place;
            if let StmtKind::Basic(ops) = &mut s.kind {
                for op in ops {
                    if let Op::Read(_, a) = op {
                        a.span = callee;
                    }
                }
            }
        }
        k
    };
    let once = SdvOptions {
        one_race_per_place_pair: true,
        ..Default::default()
    };
    let place = Span::new(FileId(0), 40, 50);
    let one_place = kernel([place, place]);
    assert_eq!(intra(&run(&one_place)).len(), 2);
    let r = check(&one_place, &once);
    assert_eq!(intra(&r).len(), 1, "{r:#?}");
    assert!(!r.is_clean());
    let two_calls = kernel([place, Span::new(FileId(0), 50, 60)]);
    assert_eq!(intra(&check(&two_calls, &once)).len(), 2);
}

#[test]
fn sdv_barrier_fixes_race() {
    let r = run(&neighbour(true));
    assert!(r.is_clean(), "{r:#?}");
}

/// `sh[tid] = in; sync; for (s = bdim/2; s > 0; s >>= 1) { if (tid < s) sh[tid] += sh[tid+s]; sync? }`
fn reduction(block_dim: Option<[u32; 3]>, barrier_in_loop: bool) -> (Kernel, Label, Label) {
    let mut b = Kb::new(block_dim);
    let sh = b.array("sh", Space::Shared);
    let s = b.local("s");
    let a = b.local("a");
    let c = b.local("c");
    let init = b.write(sh, tid());
    let sync0 = b.sync();
    let rd1 = b.acc(sh, AccessKind::Read, tid());
    let rd2 = b.acc(sh, AccessKind::Read, ub(Add, tid(), var(s)));
    let wr = b.acc(sh, AccessKind::Write, tid());
    let upd = b.basic(vec![
        Op::Read(Some(a), rd1),
        Op::Read(Some(c), rd2),
        Op::Write(wr, ub(Add, var(a), var(c))),
    ]);
    let upd_label = upd.label;
    let guarded = b.if_(ub(Lt, tid(), var(s)), vec![upd], vec![]);
    let mut loop_body = vec![guarded];
    if barrier_in_loop {
        loop_body.push(b.sync());
    }
    let lp = b.for_(
        s,
        ub(Div, bi(Builtin::BlockDim(Dim::X)), u(2)),
        ub(Gt, var(s), u(0)),
        ub(Shr, var(s), u(1)),
        loop_body,
    );
    let loop_label = lp[1].label;
    let mut body = vec![];
    if block_dim.is_none() {
        // A one-dimensional block of unknown size (the kernel indexes with threadIdx.x only).
        let flat = bin(
            And,
            ScalarTy::Bool,
            ub(Eq, bi(Builtin::BlockDim(Dim::Y)), u(1)),
            ub(Eq, bi(Builtin::BlockDim(Dim::Z)), u(1)),
        );
        body.push(b.simple(StmtKind::Assume(flat)));
    }
    body.extend([init, sync0]);
    body.extend(lp);
    (b.finish(body), upd_label, loop_label)
}

#[test]
fn sdv_tree_reduction_is_clean() {
    for bd in [Some([256, 1, 1]), None] {
        let (k, _, _) = reduction(bd, true);
        let r = run(&k);
        assert!(r.is_clean(), "blockDim {bd:?}: {r:#?}");
    }
}

#[test]
fn sdv_tree_reduction_without_barrier_races_across_back_edge() {
    for bd in [Some([256, 1, 1]), None] {
        let (k, upd, _) = reduction(bd, false);
        let r = run(&k);
        let races = intra(&r);
        assert_eq!(races.len(), 1, "{r:#?}");
        let race = races[0];
        assert_eq!((race.first.label, race.second.label), (upd, upd));
        // Within one iteration the readers (tid + s >= s) and writers (tid < s) are disjoint; the
        // race is between iterations: the statement's write (its last operation) in one iteration
        // against its read in the next.
        assert_eq!(rels(race), vec![IterRelation::AcrossBackEdgeReversed(1)]);
        assert!(r.divergences.is_empty());
        // The witness: two different iterations (s differs) of the loop.
        let s_vals = &race.witness.values[0];
        assert_eq!(s_vals.0, "s");
        assert!(s_vals.2.is_some_and(|s2| s2 != s_vals.1), "{:?}", race.witness);
    }
}

#[test]
fn sdv_loop_race_in_and_across_iterations() {
    let r = run(&store_then_neighbour_load_in_loop());
    let races = intra(&r);
    assert_eq!(races.len(), 1, "{r:#?}");
    assert_eq!(
        rels(races[0]),
        vec![
            IterRelation::SameIteration,
            IterRelation::AcrossBackEdge(1),
            IterRelation::AcrossBackEdgeReversed(1)
        ]
    );
}

/// `sh[tid] = 0; for (i = 0; i < n; i++) x = sh[(tid + i + shift) & 63];`, the loop inside
/// `for (j = 0; j < 2; j++)` when `nested`. Returns the kernel and the two access labels.
fn seeded_then_rotated(shift: i64, nested: bool) -> (Kernel, Label, Label) {
    let mut b = Kb::new(Some([64, 1, 1]));
    let sh = b.array("sh", Space::Shared);
    let (i, j, n, x) = (b.local("i"), b.local("j"), b.param("n"), b.local("x"));
    let wr = b.write(sh, tid());
    let slot = ub(BitAnd, ub(Add, ub(Add, tid(), var(i)), u(shift)), u(63));
    let rd = b.read(Some(x), sh, slot);
    let (wl, rl) = (wr.label, rd.label);
    let mut body = b.for_(i, u(0), ub(Lt, var(i), var(n)), ub(Add, var(i), u(1)), vec![rd]);
    if nested {
        body = b.for_(j, u(0), ub(Lt, var(j), u(2)), ub(Add, var(j), u(1)), body);
    }
    body.insert(0, wr);
    (b.finish(body), wl, rl)
}

#[test]
fn sdv_race_into_a_loop_after_its_first_iteration() {
    // Iteration 0 reads the thread's own slot: only later iterations race with the seed.
    for nested in [false, true] {
        let (k, wl, rl) = seeded_then_rotated(0, nested);
        let r = run(&k);
        let races = intra(&r);
        assert_eq!(races.len(), 1, "{r:#?}");
        assert_eq!((races[0].first.label, races[0].second.label), (wl, rl));
        // The depth is among the read's loops: the inner one when nested (in the outer loop's
        // first iteration the inner one's later iterations race).
        let depth = if nested { 2 } else { 1 };
        assert_eq!(
            rels(races[0]),
            vec![IterRelation::NotFirstIteration(depth)],
            "nested {nested}"
        );
    }
    // Iteration 0 reads a neighbour's slot: the race needs no later iteration.
    let (k, _, _) = seeded_then_rotated(1, false);
    let r = run(&k);
    let races = intra(&r);
    assert_eq!(races.len(), 1, "{r:#?}");
    assert_eq!(rels(races[0]), vec![IterRelation::SameIteration]);
}

#[test]
fn sdv_race_across_back_edge_of_depth_two() {
    // for i<4 { for j<4 { x = sh[tid+1]; sync; sh[tid] = 0; } sync; }
    let mut b = Kb::new(Some([64, 1, 1]));
    let sh = b.array("sh", Space::Shared);
    let (i, j, x) = (b.local("i"), b.local("j"), b.local("x"));
    let rd = b.read(Some(x), sh, ub(Add, tid(), u(1)));
    let s1 = b.sync();
    let wr = b.write(sh, tid());
    let (rdl, wrl) = (rd.label, wr.label);
    let inner = b.for_(j, u(0), ub(Lt, var(j), u(4)), ub(Add, var(j), u(1)), vec![rd, s1, wr]);
    let mut outer_body = inner;
    outer_body.push(b.sync());
    let body = b.for_(i, u(0), ub(Lt, var(i), u(4)), ub(Add, var(i), u(1)), outer_body);
    let r = run(&b.finish(body));
    let races = intra(&r);
    assert_eq!(races.len(), 1, "{r:#?}");
    assert_eq!((races[0].first.label, races[0].second.label), (rdl, wrl));
    // The write of iteration j races with the read of iteration j + 1.
    assert_eq!(rels(races[0]), vec![IterRelation::AcrossBackEdgeReversed(2)]);
    assert_eq!(races[0].kind, RaceKind::WriteAfterRead);
}

#[test]
fn sdv_barrier_under_thread_condition_diverges() {
    let mut b = Kb::new(Some([64, 1, 1]));
    let s = b.sync();
    let sl = s.label;
    let iff = b.if_(ub(Lt, tid(), u(16)), vec![s], vec![]);
    let il = iff.label;
    let r = run(&b.finish(vec![iff]));
    assert_eq!(r.divergences.len(), 1, "{r:#?}");
    let d = &r.divergences[0];
    assert_eq!((d.barrier, d.cond_stmt, d.within_warp), (sl, il, true));
}

#[test]
fn sdv_barrier_under_param_condition_is_uniform() {
    let mut b = Kb::new(None);
    let n = b.param("n");
    let s = b.sync();
    let iff = b.if_(ub(Gt, var(n), u(4)), vec![s], vec![]);
    let r = run(&b.finish(vec![iff]));
    assert!(r.is_clean(), "{r:#?}");
}

/// `sh[tid] = 0; for (i = 0; i < bound; i++) sync; x = sh[tid + 1];`
fn barrier_only_in_loop(bound: Expr, b: &mut Kb) -> Vec<Stmt> {
    let sh = b.array("sh", Space::Shared);
    let (i, x) = (b.local("i"), b.local("x"));
    let w = b.write(sh, tid());
    let s = b.sync();
    let lp = b.for_(i, u(0), ub(Lt, var(i), bound), ub(Add, var(i), u(1)), vec![s]);
    let rd = b.read(Some(x), sh, ub(Add, tid(), u(1)));
    let mut body = vec![w];
    body.extend(lp);
    body.push(rd);
    body
}

#[test]
fn sdv_zero_trip_loop_barrier_does_not_separate() {
    let mut b = Kb::new(Some([64, 1, 1]));
    let n = b.param("n");
    let body = barrier_only_in_loop(var(n), &mut b);
    let k = b.finish(body);
    let r = run(&k);
    assert_eq!(intra(&r).len(), 1, "{r:#?}");
    // With n known to be positive the loop always runs.
    let mut k2 = k.clone();
    k2.launch.params.insert("n".into(), 3);
    assert!(run(&k2).is_clean());
}

#[test]
fn sdv_constant_bound_loop_barrier_separates() {
    let mut b = Kb::new(Some([64, 1, 1]));
    let body = barrier_only_in_loop(u(4), &mut b);
    let r = run(&b.finish(body));
    assert!(r.is_clean(), "{r:#?}");
}

#[test]
fn sdv_read_dependent_index_races() {
    // idx = g[tid]; sh[idx] = 0;
    let mut b = Kb::new(Some([64, 1, 1]));
    let g = b.array("g", Space::Global);
    let sh = b.array("sh", Space::Shared);
    let idx = b.local("idx");
    let rd = b.read(Some(idx), g, tid());
    let wr = b.write(sh, var(idx));
    let mut k = b.finish(vec![rd, wr]);
    k.launch.grid_dim = Some([1, 1, 1]);
    let r = run(&k);
    let races = intra(&r);
    assert_eq!(races.len(), 1, "{r:#?}");
    assert_eq!(races[0].kind, RaceKind::WriteAfterWrite);
    assert_eq!(races[0].array, sh);
}

#[test]
fn sdv_stores_of_one_value_are_benign_races() {
    // flag[0] = 1 in every thread: benign; flag[0] = tid: harmful; `strict` reports both.
    let build = |value: Expr| {
        let mut b = Kb::new(Some([64, 1, 1]));
        let sh = b.array("flag", Space::Shared);
        let w = b.store(sh, u(0), value);
        b.finish(vec![w])
    };
    let r = run(&build(i(1)));
    assert!(r.is_clean(), "{r:#?}");
    assert_eq!(r.benign.len(), 1);
    assert!(r.benign[0].benign && r.benign[0].kind == RaceKind::WriteAfterWrite);
    let strict = check(
        &build(i(1)),
        &SdvOptions {
            strict: true,
            ..Default::default()
        },
    );
    assert_eq!((strict.races.len(), strict.benign.len()), (1, 0));
    assert!(strict.races[0].benign);
    let r = run(&build(tid()));
    assert_eq!((r.races.len(), r.benign.len()), (1, 0), "{r:#?}");
    assert!(!r.races[0].benign);
}

#[test]
fn sdv_stored_values_computed_off_the_address_path_are_compared() {
    // x = 3; for (i = 0; i < 4; i++) x = x * 2 + i; flag[0] = x;  (or x + tid). `x` reaches no
    // address or condition, so conflict queries leave it unknown; whether the stores can differ
    // must still be decided on its real values: the same in every thread (benign), or not.
    let build = |by_thread: bool| {
        let mut b = Kb::new(Some([64, 1, 1]));
        let sh = b.array("flag", Space::Shared);
        let (x, i) = (b.local("x"), b.local("i"));
        let init = b.assign(x, u(3));
        let step = ub(BinOp::Add, ub(BinOp::Mul, var(x), u(2)), var(i));
        let update = b.assign(x, step);
        let mut body = vec![init];
        body.extend(b.for_(
            i,
            u(0),
            ub(BinOp::Lt, var(i), u(4)),
            ub(BinOp::Add, var(i), u(1)),
            vec![update],
        ));
        let value = if by_thread {
            ub(BinOp::Add, var(x), tid())
        } else {
            var(x)
        };
        body.push(b.store(sh, u(0), value));
        b.finish(body)
    };
    let r = run(&build(false));
    assert!(r.is_clean(), "{r:#?}");
    assert_eq!(r.benign.len(), 1, "{r:#?}");
    let r = run(&build(true));
    assert_eq!((r.races.len(), r.benign.len()), (1, 0), "{r:#?}");
}

#[test]
fn sdv_atomics() {
    let mut b = Kb::new(Some([64, 1, 1]));
    let sh = b.array("sh", Space::Shared);
    let x = b.local("x");
    let a1 = b.atomic(sh, u(0));
    let a2 = b.atomic(sh, u(0));
    let k = b.finish(vec![a1, a2]);
    assert!(run(&k).is_clean());

    let mut b = Kb::new(Some([64, 1, 1]));
    let sh = b.array("sh", Space::Shared);
    let a1 = b.atomic(sh, u(0));
    let rd = b.read(Some(x), sh, u(0));
    let r = run(&b.finish(vec![a1, rd]));
    assert_eq!(r.races.len(), 1, "{r:#?}");
    assert_eq!(r.races[0].kind, RaceKind::AtomicVsPlain);
}

#[test]
fn sdv_wrap_around_is_real() {
    // sh[tid * 0x40000000] (u32): threads 0 and 4 both hit element 0 after wrap-around.
    let mut b = Kb::new(Some([8, 1, 1]));
    let sh = b.array("sh", Space::Shared);
    let w = b.write(sh, ub(Mul, tid(), u(0x4000_0000)));
    let r = run(&b.finish(vec![w]));
    assert_eq!(r.races.len(), 1, "{r:#?}");
    let t = &r.races[0].witness.threads;
    assert_eq!(t[0].thread[0] % 4, t[1].thread[0] % 4);

    let mut b = Kb::new(Some([8, 1, 1]));
    let sh = b.array("sh", Space::Shared);
    let w = b.write(sh, ub(Mul, tid(), u(2)));
    assert!(run(&b.finish(vec![w])).is_clean());
}

#[test]
fn sdv_inter_block_global_race() {
    let mut b = Kb::new(Some([64, 1, 1]));
    let g = b.array("g", Space::Global);
    // g[tid] = blockIdx.x: blocks store different values (`g[tid] = tid` would be benign).
    let w = b.store(g, tid(), bi(Builtin::BlockIdx(Dim::X)));
    let k = b.finish(vec![w]);
    let r = run(&k);
    assert_eq!(r.races.len(), 1, "{r:#?}");
    assert_eq!(r.races[0].scope, RaceScope::InterBlock);
    let t = &r.races[0].witness.threads;
    assert_ne!(t[0].block, t[1].block);
    assert!(run(&Kernel {
        launch: LaunchConfig {
            grid_dim: Some([1, 1, 1]),
            ..k.launch.clone()
        },
        ..k.clone()
    })
    .is_clean());
    let off = SdvOptions {
        check_inter_block: false,
        ..Default::default()
    };
    assert!(check(&k, &off).is_clean());

    // g[blockIdx.x * blockDim.x + tid]: blocks that differ in y collide, unless the grid is
    // assumed one-dimensional.
    for one_d in [false, true] {
        let mut b = Kb::new(Some([64, 1, 1]));
        let g = b.array("g", Space::Global);
        let gid = ub(
            Add,
            ub(Mul, bi(Builtin::BlockIdx(Dim::X)), bi(Builtin::BlockDim(Dim::X))),
            tid(),
        );
        // Mentioning blockIdx.y makes the grid possibly two-dimensional.
        let dummy = b.local("dummy");
        let mut body = vec![b.assign(dummy, bi(Builtin::BlockIdx(Dim::Y)))];
        if one_d {
            let flat = bin(
                And,
                ScalarTy::Bool,
                ub(Eq, bi(Builtin::GridDim(Dim::Y)), u(1)),
                ub(Eq, bi(Builtin::GridDim(Dim::Z)), u(1)),
            );
            body.push(b.simple(StmtKind::Assume(flat)));
        }
        body.push(b.store(g, gid, bi(Builtin::BlockIdx(Dim::Y))));
        let r = run(&b.finish(body));
        assert_eq!(r.is_clean(), one_d, "{r:#?}");
    }
}

#[test]
fn sdv_warp_level_uniformity() {
    // if (threadIdx.x / 32 == 1) { sh[tid] = 0; sync; }
    let mut b = Kb::new(Some([128, 1, 1]));
    let sh = b.array("sh", Space::Shared);
    let w = b.write(sh, tid());
    let s = b.sync();
    let (wl, sl) = (w.label, s.label);
    let iff = b.if_(ub(Eq, ub(Div, tid(), u(32)), u(1)), vec![w, s], vec![]);
    let il = iff.label;
    let k = b.finish(vec![iff]);
    let u_ = uniformity(&k);
    assert_eq!(u_.level(il), Level::Block);
    assert_eq!(u_.level(wl), Level::Warp);
    assert_eq!(u_.level(sl), Level::Warp);
    let r = run(&k);
    assert_eq!(r.divergences.len(), 1);
    assert!(!r.divergences[0].within_warp);

    // The same condition on threadIdx.x % 32 is not warp-uniform.
    let mut b = Kb::new(Some([128, 1, 1]));
    let s = b.sync();
    let sl = s.label;
    let iff = b.if_(ub(Eq, ub(Rem, tid(), u(32)), u(1)), vec![s], vec![]);
    let k = b.finish(vec![iff]);
    assert_eq!(uniformity(&k).level(sl), Level::Thread);

    // threadIdx.y < 1 is warp-uniform when blockDim.x is a multiple of 32, not otherwise.
    for (bx, expect) in [(32, Level::Warp), (16, Level::Thread)] {
        let mut b = Kb::new(Some([bx, 4, 1]));
        let s = b.sync();
        let sl = s.label;
        let iff = b.if_(ub(Lt, bi(Builtin::ThreadIdx(Dim::Y)), u(1)), vec![s], vec![]);
        let k = b.finish(vec![iff]);
        assert_eq!(uniformity(&k).level(sl), expect, "blockDim.x = {bx}");
    }
}

#[test]
fn sdv_divergent_break_and_return() {
    // for (i = 0; i < 4; i++) { if (tid == i) break; sync; }
    let mut b = Kb::new(Some([64, 1, 1]));
    let i = b.local("i");
    let brk = b.simple(StmtKind::Break);
    let iff = b.if_(ub(Eq, tid(), var(i)), vec![brk], vec![]);
    let il = iff.label;
    let s = b.sync();
    let sl = s.label;
    let body = b.for_(i, u(0), ub(Lt, var(i), u(4)), ub(Add, var(i), u(1)), vec![iff, s]);
    let r = run(&b.finish(body));
    assert_eq!(r.divergences.len(), 1, "{r:#?}");
    assert_eq!((r.divergences[0].barrier, r.divergences[0].cond_stmt), (sl, il));

    // if (tid == 0) return; sync;  — and the same with a uniform condition.
    for (cond, divergent) in [
        (ub(Eq, tid(), u(0)), true),
        (ub(Eq, bi(Builtin::BlockIdx(Dim::X)), u(0)), false),
    ] {
        let mut b = Kb::new(Some([64, 1, 1]));
        let ret = b.simple(StmtKind::Return { trap: None });
        let iff = b.if_(cond, vec![ret], vec![]);
        let s = b.sync();
        let sl = s.label;
        let il = iff.label;
        let k = b.finish(vec![iff, s]);
        assert_eq!(run(&k).divergences.len(), divergent as usize);
        let u_ = uniformity(&k);
        assert_eq!(u_.level(sl) != Level::Block, divergent);
        // The `if` itself runs under a uniform predicate; right after it, not necessarily.
        assert_eq!(u_.level(il), Level::Block);
        let after = u_.position_level(crate::tree::Position::After(il));
        assert_eq!(after != Level::Block, divergent);
    }
}

#[test]
fn sdv_syncwarp_orders_lanes_of_one_warp() {
    // if (tid < 32) { sh[tid] = 0; __syncwarp(); x = sh[(tid + 1) % 32]; }
    let build = |with_syncwarp: bool| {
        let mut b = Kb::new(Some([64, 1, 1]));
        let sh = b.array("sh", Space::Shared);
        let x = b.local("x");
        let mut t = vec![b.write(sh, tid())];
        if with_syncwarp {
            t.push(b.syncwarp());
        }
        t.push(b.read(Some(x), sh, ub(Rem, ub(Add, tid(), u(1)), u(32))));
        let iff = b.if_(ub(Lt, tid(), u(32)), t, vec![]);
        b.finish(vec![iff])
    };
    assert!(run(&build(true)).is_clean());
    assert_eq!(run(&build(false)).races.len(), 1);
}

#[test]
fn sdv_warp_sync_lock_step_groups() {
    // sh[tid] = 0; x = sh[tid ^ 1]; — lanes of one 32-group run in lock step.
    let build = |ws: Option<u32>| {
        let mut b = Kb::new(Some([64, 1, 1]));
        b.launch().warp_sync = ws;
        let sh = b.array("sh", Space::Shared);
        let x = b.local("x");
        let w = b.write(sh, tid());
        let rd = b.read(Some(x), sh, ub(BitXor, tid(), u(1)));
        b.finish(vec![w, rd])
    };
    assert_eq!(run(&build(None)).races.len(), 1);
    assert!(run(&build(Some(32))).is_clean());
}

#[test]
fn sdv_named_barriers_are_inconclusive() {
    let mut b = Kb::new(Some([64, 1, 1]));
    let nb = b.barrier(Barrier::NamedSync {
        id: Expr::int(1),
        count: Some(Expr::int(64)),
    });
    let r = run(&b.finish(vec![nb]));
    assert_eq!(r.inconclusive.len(), 1);
    assert!(r.inconclusive[0].message.contains("named-barrier checker"));
}

/// A tiled matrix multiplication (16×16 tiles, signed `int` indices, symbolic `n` and grid).
fn matmul(second_barrier: bool) -> (Kernel, Label, Label) {
    let mut b = Kb::new(Some([16, 16, 1]));
    let ga = b.array("A", Space::Global);
    let gb = b.array("B", Space::Global);
    let gc = b.array("C", Space::Global);
    let sa = b.array("As", Space::Shared);
    let sb = b.array("Bs", Space::Shared);
    let n = b.var("n", ScalarTy::I32, VarKind::Param);
    let int = |b: &mut Kb, name: &str| b.var(name, ScalarTy::I32, VarKind::Local);
    let (row, col, t, kk) = (
        int(&mut b, "row"),
        int(&mut b, "col"),
        int(&mut b, "t"),
        int(&mut b, "k"),
    );
    let (x, y, sum) = (
        b.var("x", ScalarTy::Opaque, VarKind::Local),
        b.var("y", ScalarTy::Opaque, VarKind::Local),
        b.var("sum", ScalarTy::Opaque, VarKind::Local),
    );
    let tx = || to_int(tid());
    let ty = || to_int(bi(Builtin::ThreadIdx(Dim::Y)));
    let tile = |r: Expr, c: Expr| ib(Add, ib(Mul, r, i(16)), c);
    let mut body = vec![
        b.assign(
            row,
            to_int(ub(
                Add,
                ub(Mul, bi(Builtin::BlockIdx(Dim::Y)), u(16)),
                bi(Builtin::ThreadIdx(Dim::Y)),
            )),
        ),
        b.assign(
            col,
            to_int(ub(Add, ub(Mul, bi(Builtin::BlockIdx(Dim::X)), u(16)), tid())),
        ),
        b.assign(sum, Expr::Opaque(ScalarTy::Opaque, vec![])),
    ];
    let a_idx = ib(Add, ib(Add, ib(Mul, var(row), var(n)), ib(Mul, var(t), i(16))), tx());
    let b_idx = ib(Add, ib(Mul, ib(Add, ib(Mul, var(t), i(16)), ty()), var(n)), var(col));
    let ld_a = b.read(Some(x), ga, a_idx);
    let st_a = b.write(sa, tile(ty(), tx()));
    let st_a_label = st_a.label;
    let ld_b = b.read(Some(y), gb, b_idx);
    let st_b = b.write(sb, tile(ty(), tx()));
    let s1 = b.sync();
    let rd_a = b.read(Some(x), sa, tile(ty(), var(kk)));
    let rd_a_label = rd_a.label;
    let rd_b = b.read(Some(y), sb, tile(var(kk), tx()));
    let acc = b.assign(sum, Expr::Opaque(ScalarTy::Opaque, vec![var(sum), var(x), var(y)]));
    let inner = b.for_(
        kk,
        i(0),
        ib(Lt, var(kk), i(16)),
        ib(Add, var(kk), i(1)),
        vec![rd_a, rd_b, acc],
    );
    let mut outer_body = vec![ld_a, st_a, ld_b, st_b, s1];
    outer_body.extend(inner);
    if second_barrier {
        outer_body.push(b.sync());
    }
    let outer = b.for_(
        t,
        i(0),
        ib(Lt, var(t), ib(Div, var(n), i(16))),
        ib(Add, var(t), i(1)),
        outer_body,
    );
    body.extend(outer);
    let in_bounds = bin(And, ScalarTy::Bool, ib(Lt, var(row), var(n)), ib(Lt, var(col), var(n)));
    let st_c = b.write(gc, ib(Add, ib(Mul, var(row), var(n)), var(col)));
    body.push(b.if_(in_bounds, vec![st_c], vec![]));
    (b.finish(body), st_a_label, rd_a_label)
}

#[test]
fn sdv_tiled_matmul() {
    let (mut k, _, _) = matmul(true);
    k.launch.params.insert("n".into(), 1024);
    let t0 = std::time::Instant::now();
    let r = run(&k);
    eprintln!("matmul check: {:?}, {} queries", t0.elapsed(), r.queries);
    assert!(r.is_clean(), "{r:#?}");

    // With a symbolic n the output index row * n + col is a non-linear product the solver may
    // not decide in time; whatever it cannot decide must be reported as an assumed race.
    let (k, _, _) = matmul(true);
    let quick = SdvOptions {
        timeout_ms: 300,
        ..Default::default()
    };
    let r = check(&k, &quick);
    assert!(r.races.iter().all(|x| x.assumed), "{r:#?}");

    let (mut k, st_a, rd_a) = matmul(false);
    k.launch.params.insert("n".into(), 1024);
    let r = run(&k);
    let races = intra(&r);
    assert_eq!(races.len(), 2, "{r:#?}");
    let ra = races.iter().find(|x| x.first.label == st_a).expect("As race");
    assert_eq!(ra.second.label, rd_a);
    // The reads of tile k race with the store of tile k + 1: the store is first in the text but
    // runs in the later iteration.
    assert_eq!(rels(ra), vec![IterRelation::AcrossBackEdgeReversed(1)]);
    // Kinds follow text order: the write comes first in the text.
    assert_eq!(ra.kind, RaceKind::ReadAfterWrite);
}

/// `sh[tid] = 0; x = sh[tid + 1]; y = sh[tid];`: a check keeps the proof that the write and the
/// second read do not race; a re-check with a barrier added reports what a full check of that
/// kernel reports without asking that query again.
#[test]
fn sdv_recheck_with_barriers_reuses_proofs() {
    let mut b = Kb::new(Some([64, 1, 1]));
    let sh = b.array("sh", Space::Shared);
    let (x, y) = (b.local("x"), b.local("y"));
    let body = vec![
        b.write(sh, tid()),
        b.read(Some(x), sh, ub(Add, tid(), u(1))),
        b.read(Some(y), sh, tid()),
    ];
    let labels: Vec<Label> = body.iter().map(|s| s.label).collect();
    let k = b.finish(body);
    // The injectivity test would settle both proved queries without the solver: off, the
    // solver calls the proofs save are counted.
    let opts = SdvOptions {
        small_witnesses: false,
        injective_test: false,
        ..Default::default()
    };
    let (r, proofs) = check_proving(&k, &opts);
    assert_eq!(intra(&r).len(), 1, "{r:#?}");
    // The write with itself, and with the second read.
    assert_eq!(proofs.len(), 2);
    let pairs = |r: &Report| -> Vec<(Label, Label, Vec<IterRelation>)> {
        r.races
            .iter()
            .map(|x| (x.first.label, x.second.label, x.relations.clone()))
            .collect()
    };
    // After the write: nothing left to ask. At the end: the racing pair only.
    for (pos, races) in [(Position::After(labels[0]), 0), (Position::After(labels[2]), 1)] {
        let full = check(
            &crate::tree::insert_barriers(&k, &[(pos, Barrier::Block)]).unwrap().0,
            &opts,
        );
        let reused = check_with_barriers(&proofs, &[pos], &opts).unwrap();
        assert_eq!(pairs(&reused), pairs(&full));
        assert_eq!(reused.races.len(), races);
        assert!(reused.queries <= full.queries);
        if races == 1 {
            assert!(reused.queries < full.queries, "{} vs {}", reused.queries, full.queries);
        }
    }
}

/// Stores of one thread's row of four (`row[4t + 1]`, `row[4t + 2]`) never meet another
/// thread's other slot: the GCD test settles those pairs without a solver call, and a pair
/// the test cannot refute (`row[4t + 1]` against `row[4t + 5]`, the next thread's slot) is
/// still a race.
#[test]
fn sdv_gcd_test_settles_strided_slots_and_keeps_real_races() {
    let build = |second: i64| {
        let mut b = Kb::new(Some([64, 1, 1]));
        let row = b.array("row", Space::Shared);
        let slot = |c: i64| ub(Add, ub(Mul, tid(), u(4)), u(c));
        let body = vec![b.write(row, slot(1)), b.write(row, slot(second))];
        b.finish(body)
    };
    let (r, p) = check_profiled(&build(2), &SdvOptions::default());
    assert!(r.races.is_empty(), "{r:#?}");
    let settled: Vec<_> = p.queries.iter().filter(|q| q.solver == "gcd").collect();
    assert!(!settled.is_empty(), "{:#?}", p.queries);
    assert!(settled.iter().all(|q| q.result == "unsat"));
    let (r, _) = check_profiled(&build(5), &SdvOptions::default());
    assert_eq!(intra(&r).len(), 1, "{r:#?}");
}

/// `i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; dst[i] = f(i); x = src[i];
/// src[i] = x` (`arange_f32`'s shape, with a load too): settled by the injectivity test with
/// no solver call, and the same report without the test (where the solver is asked).
#[test]
fn element_wise_kernels_ask_no_solver_query() {
    for block in [Some([256, 1, 1]), None] {
        let mut b = Kb::new(block);
        let (dst, src) = (b.array("dst", Space::Global), b.array("src", Space::Global));
        let (gi, n, x) = (b.var("i", ScalarTy::I32, VarKind::Local), b.param("n"), b.local("x"));
        let gid = ub(
            Add,
            ub(Mul, bi(Builtin::BlockDim(Dim::X)), bi(Builtin::BlockIdx(Dim::X))),
            tid(),
        );
        let set = b.assign(gi, to_int(gid));
        let ret = b.simple(StmtKind::Return { trap: None });
        let guard = b.if_(ib(Ge, var(gi), to_int(var(n))), vec![ret], vec![]);
        let store = b.store(dst, var(gi), ib(Mul, var(gi), i(3)));
        let load = b.read(Some(x), src, var(gi));
        let back = b.store(src, var(gi), var(x));
        let k = b.finish(vec![set, guard, store, load, back]);
        let r = run(&k);
        assert!(r.is_clean(), "{r:#?}");
        assert_eq!(r.queries, 0, "{block:?}: {r:#?}");
        // dst's store with itself, src's load and store, src's store with itself: within a
        // block and between blocks each (some answered together with another).
        assert!(r.settled_by_injectivity >= 4, "{r:#?}");
        let off = check(
            &k,
            &SdvOptions {
                injective_test: false,
                ..Default::default()
            },
        );
        assert!(off.queries > 0);
        assert_eq!(
            (off.races, off.divergences, off.inconclusive),
            (r.races, r.divergences, r.inconclusive)
        );
    }
}

/// A store at a block's row `dst[blockIdx.x * n + threadIdx.x]` (injective only if the
/// rows are at least a block long, which a guard would have to say) and one whose index two
/// threads share (`dst[threadIdx.x / 2]`) are left to the solver, which finds their races.
#[test]
fn the_injectivity_test_leaves_other_indices_to_the_solver() {
    let mut b = Kb::new(Some([64, 1, 1]));
    let dst = b.array("dst", Space::Global);
    let n = b.param("n");
    let row = ub(Add, ub(Mul, bi(Builtin::BlockIdx(Dim::X)), var(n)), tid());
    let w = b.store(dst, row, bi(Builtin::BlockIdx(Dim::X)));
    let r = run(&b.finish(vec![w]));
    // Rows shorter than a block overlap: a layout race.
    assert_eq!(r.overlap.len(), 1, "{r:#?}");
    assert_eq!(r.overlap[0].scope, RaceScope::InterBlock);
    assert!(r.settled_by_injectivity >= 1 && r.queries > 0, "{r:#?}");

    let mut b = Kb::new(Some([64, 1, 1]));
    let dst = b.array("dst", Space::Shared);
    let w = b.write(dst, ub(Div, tid(), u(2)));
    let r = run(&b.finish(vec![w]));
    assert_eq!(intra(&r).len(), 1, "{r:#?}");
    assert_eq!(r.settled_by_injectivity, 0);
}
