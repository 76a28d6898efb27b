"""Abilities of every hero (rule book §6), registered per card id, plus the generic decision filters.

An ability is ``fn(state, me, card)``. It pushes decisions (``state.ask``) and later steps (``state.later``)
onto the resolution stack; a step pushed first runs last. Continuations (``@cont``) receive the chosen value.
"""

from __future__ import annotations

from typing import Any

from . import moves as _moves
from .cards import EMPEROR, FACTIONS, GUARDIANS, factions_of, is_of
from .frames import Ask, Cont, Filter, Kind
from .state import ABILITIES, Cand, Frame, State, ability, cont, filt, op

HT, IA, WF, UD = FACTIONS


def parse_moves(text: str) -> list[tuple[str, int]]:
    return _moves.marker_steps(text)


# ====================================================================== generic filters


@filt("marker")
def _f_marker(st: State, fr: Frame) -> list[Cand]:
    out = []
    for o in fr["opts"]:
        mv = parse_moves(o)
        if st.changes(mv):
            out.append((o, mv))
    return out


@filt("hero")
def _f_hero(st: State, fr: Frame) -> list[Cand]:
    """Heroes of the parties ``ps``; face-up ones may be filtered by faction (``fac``: a member of it,
    ``facs``: of any of them, ``nfac``: not of it) and name (``ex``); ``only`` keeps the named cards (face
    up or down), ``exi`` drops [seat, index] places."""
    fac = fr.get("fac")
    facs = fr.get("facs")
    nfac = fr.get("nfac")
    ex = set(fr.get("ex", ()))

    def pred(c: str) -> bool:
        if c in ex:
            return False
        if fac is not None and not is_of(c, fac):
            return False
        if facs is not None and not any(is_of(c, f) for f in facs):
            return False
        return not (nfac is not None and is_of(c, nfac))

    plain = fac is None and facs is None and nfac is None and not ex
    cands = st.heroes(fr["ps"], fr.get("up"), None if plain else pred)
    exi = fr.get("exi")
    if exi:
        cands = [c for c in cands if list(c[1]) not in exi]
    only = fr.get("only")
    if only is not None:
        cands = [c for c in cands if st.parties[c[1][0]][c[1][1]][0] in only]
    if fr.get("asif") and st.chain:
        cands = [c for c in cands if st.parties[c[1][0]][c[1][1]][0] not in st.chain]
    return cands


@filt("tavern")
def _f_tavern(st: State, fr: Frame) -> list[Cand]:
    fac = fr.get("fac")
    ex = st.chain if fr.get("asif") else ()
    only = fr.get("only")
    return [
        (_moves.card("tavern", c), i)
        for i, c in enumerate(st.tavern)
        if c is not None and (fac is None or is_of(c, fac)) and c not in ex and (only is None or c in only)
    ]


@filt("hand")
def _f_hand(st: State, fr: Frame) -> list[Cand]:
    fac = fr.get("fac")
    nfac = fr.get("nfac")
    prefix = fr.get("prefix", "hand")
    only = fr.get("only")
    return [
        (_moves.card(prefix, c), c)
        for c in st.hands[fr["seat"]]
        if (fac is None or is_of(c, fac)) and (nfac is None or not is_of(c, nfac))
        and (only is None or c in only)
    ]


@filt("seat")
def _f_seat(st: State, fr: Frame) -> list[Cand]:
    cond = fr.get("cond")
    out = []
    for p in fr["ps"]:
        if cond == "up" and not any(u for _, u in st.parties[p]):
            continue
        if cond == "hand" and not st.hands[p]:
            continue
        out.append((_moves.seat(p), p))
    return out


@filt("faction")
def _f_faction(st: State, fr: Frame) -> list[Cand]:
    return [(_moves.faction(f), f) for f in factions_of(st.modules)]


@filt("pick")
def _f_pick(st: State, fr: Frame) -> list[Cand]:
    cards = st.graveyard if fr.get("src") == "grave" else fr.get("hid", fr.get("pub", ()))
    ex = st.chain if fr.get("asif") and "hid" not in fr else ()
    fac = fr.get("fac")
    picked = [c for c in dict.fromkeys(cards) if c not in ex and (fac is None or is_of(c, fac))]
    return [(_moves.card("pick", c), c) for c in picked]


@filt("fixed")
def _f_fixed(st: State, fr: Frame) -> list[Cand]:
    return [(o, o) for o in fr["opts"]]


# ====================================================================== generic steps


@op("ability")
def _op_ability(st: State, fr: Frame) -> None:
    ABILITIES[fr["card"]](st, fr["me"], fr["card"])


@op("chain-pop")
def _op_chain_pop(st: State, fr: Frame) -> None:
    st.chain.pop()


@cont("marker")
def _c_marker(st: State, fr: Frame, v: Any) -> None:
    st.move_markers(v)


@cont("bury")
def _c_bury(st: State, fr: Frame, v: Any) -> None:
    if v is not None:  # None: a declined "you may" (Gigantic Duo)
        st.bury(v[0], v[1], fr["seat"])


@cont("asif")
def _c_asif(st: State, fr: Frame, v: Any) -> None:
    p, i = v
    st.resolve(fr["seat"], st.parties[p][i][0], asif=True)


@cont("hand-down")
def _c_hand_down(st: State, fr: Frame, c: str) -> None:
    me = fr["seat"]
    st.hands[me].remove(c)
    st.parties[me].append((c, False))
    st.moved(c, f"h{me}", f"d{me}", (me,))


@cont("turn-over")
def _c_turn_over(st: State, fr: Frame, v: Any) -> None:
    st.turn_over(*v)


@cont("look")
def _c_look(st: State, fr: Frame, v: Any) -> None:
    if v is None:
        return
    me, (p, i) = fr["seat"], v
    st.learn(me, st.parties[p][i][0], f"d{p}")
    if fr.get("n", 1) > 1:
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.LOOK, may=True,
            ctx={"ps": fr["ps"], "up": False, "n": 1, "exi": [[p, i]]},
        ))


def everyone(st: State) -> list[int]:
    return list(range(st.players))


def bury_ask(st: State, me: int, card: str, up: bool | None, fac: str | None = None,
             ps: list[int] | None = None) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.BURY,
        ctx={"ps": everyone(st) if ps is None else ps, "up": up, "fac": fac},
    ))


def hand_down_ask(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HAND, seat=me, card=card, filter=Filter.HAND, then=Cont.HAND_DOWN, secret=True,
    ))


def look_ask(st: State, me: int, card: str, n: int, may: bool = True) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.LOOK, may=may,
        ctx={"ps": everyone(st), "up": False, "n": n},
    ))


def draw_limbo(st: State, me: int, n: int) -> list[str]:
    out = []
    for _ in range(n):
        c = st.draw_harbor()
        if c is None:
            break
        out.append(c)
        st.learn(me, c, None)
    return out


def trailing(lead: str) -> str:
    return "G" if lead == "R" else "R"


# ====================================================================== bury / simple targets


@ability("shaky-sharpshooter")
def _sharpshooter(st: State, me: int, card: str) -> None:
    bury_ask(st, me, card, True, IA)


@ability("canned-champion")
def _champion(st: State, me: int, card: str) -> None:
    bury_ask(st, me, card, True, HT)


@ability("half-eaten-bull")
def _bull(st: State, me: int, card: str) -> None:
    bury_ask(st, me, card, True, WF)


@ability("aimless-eel")
def _eel(st: State, me: int, card: str) -> None:
    bury_ask(st, me, card, True, UD)


@ability("unconfident-executioner")
def _executioner(st: State, me: int, card: str) -> None:
    bury_ask(st, me, card, True)


@ability("slaughtered-slime")
def _slime(st: State, me: int, card: str) -> None:
    bury_ask(st, me, card, False)


@ability("kind-king-slayer")
def _king_slayer(st: State, me: int, card: str) -> None:
    lead = st.leading()
    if lead:
        st.move_markers([(lead, -2)])
    bury_ask(st, me, card, None)


@ability("nightmarish-northman")
def _nightmarish(st: State, me: int, card: str) -> None:
    st.later("northman-other", me=me, card=card)
    bury_ask(st, me, card, True, ps=[me])


@op("northman-other")
def _op_northman(st: State, fr: Frame) -> None:
    bury_ask(st, fr["me"], fr["card"], True, ps=st.others(fr["me"]))


@ability("overworked-amazon")
def _amazon(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=card, filter=Filter.SEAT, then=Cont.AMAZON,
        ctx={"ps": everyone(st), "cond": "up"},
    ))


@cont("amazon")
def _c_amazon(st: State, fr: Frame, p: int) -> None:
    bury_ask(st, p, fr["card"], True, ps=[p])


@ability("gorgeous-gorgon")
def _gorgon(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=card, filter=Filter.SEAT, then=Cont.GORGON,
        ctx={"ps": everyone(st), "cond": "up"},
    ))


@cont("gorgon")
def _c_gorgon(st: State, fr: Frame, p: int) -> None:
    ups = [i for i, (_, u) in enumerate(st.parties[p]) if u]
    st.bury(p, st.rng("bury").choice(ups), fr["seat"])


# ====================================================================== hand to party face down


@ability("battle-pet-master", "well-aged-warrior", "lethargic-leech", "friendly-frogmage")
def _hand_down(st: State, me: int, card: str) -> None:
    hand_down_ask(st, me, card)


@ability("gambling-overseer")
def _overseer(st: State, me: int, card: str) -> None:
    st.later("overseer-hand", me=me, card=card)
    bury_ask(st, me, card, False, ps=[me])


@op("overseer-hand")
def _op_overseer(st: State, fr: Frame) -> None:
    hand_down_ask(st, fr["me"], fr["card"])
    hand_down_ask(st, fr["me"], fr["card"])


# ====================================================================== looking


@ability("curious-troll", "watchful-witch")
def _look2(st: State, me: int, card: str) -> None:
    look_ask(st, me, card, 2)


@ability("bludgeoning-blowfish")
def _blowfish(st: State, me: int, card: str) -> None:
    opts = []
    if st.heroes(st.others(me), False):
        opts.append("flip")
    if st.heroes(everyone(st), False):
        opts.append("look")
    if opts:
        st.push(Ask(
            kind=Kind.MODE, seat=me, card=card, filter=Filter.FIXED, then=Cont.BLOWFISH, ctx={"opts": opts},
        ))


@cont("blowfish")
def _c_blowfish(st: State, fr: Frame, mode: str) -> None:
    me = fr["seat"]
    if mode == "flip":
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.TURN_OVER,
            ctx={"ps": st.others(me), "up": False},
        ))
    else:
        look_ask(st, me, fr["card"], 1, may=False)  # "Either ... OR secretly look": not a "you may"


# ====================================================================== turning over


@ability("long-eared-loner", "spirited-shaman")
def _turn_other(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.TURN_OVER,
        ctx={"ps": st.others(me)},
    ))


@ability("androgynous-assassin")
def _assassin(st: State, me: int, card: str) -> None:
    if st.heroes(st.others(me), False):
        st.push(Ask(kind=Kind.FACTION, seat=me, card=card, filter=Filter.FACTION, then=Cont.ASSASSIN))


@cont("assassin")
def _c_assassin(st: State, fr: Frame, f: str) -> None:
    me = fr["seat"]
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.ASSASSIN_FLIP,
        ctx={"ps": st.others(me), "up": False, "named": f},
    ))


@cont("assassin-flip")
def _c_assassin_flip(st: State, fr: Frame, v: Any) -> None:
    p, i = v
    st.turn_over(p, i)
    if is_of(st.parties[p][i][0], fr["named"]):
        st.bury(p, i, fr["seat"])


@ability("half-sliced-ghoul")
def _ghoul(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.GHOUL,
        ctx={"ps": st.others(me), "up": False},
    ))


@cont("ghoul")
def _c_ghoul(st: State, fr: Frame, v: Any) -> None:
    p, i = v
    st.turn_over(p, i)
    c = st.parties[p][i][0]
    if is_of(c, IA) or is_of(c, HT):
        st.marker(fr["seat"], fr["card"], [[("R", 2)], [("G", 2)], [("R", 2), ("G", 2)]], True)


@ability("saltwater-sage")
def _sage(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.SAGE,
        ctx={"ps": [me], "up": False},
    ))


@cont("sage")
def _c_sage(st: State, fr: Frame, v: Any) -> None:
    p, i = v
    st.turn_over(p, i)
    st.resolve(fr["seat"], st.parties[p][i][0], asif=True)


# ====================================================================== "as if played" chains


@ability("ghastly-granny")
def _granny(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.ASIF,
        ctx={"ps": [me], "up": True, "ex": ["ghastly-granny"]},
    ))


@ability("sanguine-scholar")
def _sanguine(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.ASIF,
        ctx={"ps": [(me + 1) % st.players], "up": True},
    ))


@ability("sun-shy-skeleton")
def _sun_shy(st: State, me: int, card: str) -> None:
    if st.graveyard and st.graveyard[0] != EMPEROR and st.graveyard[0] not in st.chain:
        st.resolve(me, st.graveyard[0], asif=True)


@ability("modest-monsterslayer")
def _monsterslayer(st: State, me: int, card: str) -> None:
    st.push(Ask(kind=Kind.PICK_TAVERN, seat=me, card=card, filter=Filter.TAVERN, then=Cont.SLAYER))


@ability("insidious-impaler")
def _impaler(st: State, me: int, card: str) -> None:
    st.push(Ask(kind=Kind.PICK_TAVERN, seat=me, card=card, filter=Filter.TAVERN, then=Cont.IMPALER))


def take_copied(st: State, slot: int) -> str:
    """Take the chosen Tavern card out of its slot for Monsterslayer / Impaler (rule book §4, "play"): while
    it resolves it is in no zone, so it cannot count, discard or bury itself, and its slot stays empty until
    the end-of-turn refill. The end step that receives it records it as ``held`` (and its ``slot``)."""
    c = st.tavern[slot]
    assert c is not None
    st.tavern[slot] = None
    return c


def held_slots(st: State) -> set[int]:
    """Tavern slots whose card is being resolved by a copier; they stay empty until the end of the turn."""
    return {fr["slot"] for fr in st.stack if "held" in fr}


@cont("slayer")
def _c_slayer(st: State, fr: Frame, slot: int) -> None:
    c = take_copied(st, slot)
    st.later("slayer-end", me=fr["seat"], held=c, slot=slot)
    st.resolve(fr["seat"], c, asif=True)


@cont("impaler")
def _c_impaler(st: State, fr: Frame, slot: int) -> None:
    c = take_copied(st, slot)
    st.later("impaler-end", held=c, slot=slot, me=fr["seat"])
    st.resolve(fr["seat"], c, asif=True)


@op("slayer-end")
def _op_slayer_end(st: State, fr: Frame) -> None:
    c, me = fr["held"], fr["me"]
    st.parties[me].append((c, False))
    st.moved(c, None, f"d{me}", None)


@op("impaler-end")
def _op_impaler_end(st: State, fr: Frame) -> None:
    st.to_graveyard(fr["held"], fr.get("me", st.turn))


# ====================================================================== markers computed by the ability


@ability("hangry-barbarian")
def _barbarian(st: State, me: int, card: str) -> None:
    n = st.discard_tavern(lambda c: is_of(c, IA) or is_of(c, UD))
    st.move_markers([("R", -n)])


@ability("heart-bending-bard")
def _bard(st: State, me: int, card: str) -> None:
    n = st.discard_tavern(lambda c: is_of(c, WF) or is_of(c, HT))
    st.move_markers([("G", -n)])


@ability("double-shielded-turtle")
def _turtle(st: State, me: int, card: str) -> None:
    st.push(Ask(kind=Kind.FACTION, seat=me, card=card, filter=Filter.FACTION, then=Cont.TURTLE))


@cont("turtle")
def _c_turtle(st: State, fr: Frame, f: str) -> None:
    n = st.discard_tavern(lambda c: is_of(c, f))
    st.marker(fr["seat"], fr["card"], [[("R", -n)], [("G", -n)], [("R", -n), ("G", -n)]], True)


@ability("bored-goblin")
def _goblin(st: State, me: int, card: str) -> None:
    if st.count_up(me, UD):
        st.move_markers([("R", -2)])


@ability("grumpy-guard")
def _guard(st: State, me: int, card: str) -> None:
    if st.count_up(me, WF):
        st.move_markers([("G", 2)])


@ability("hairy-hermit")
def _hermit(st: State, me: int, card: str) -> None:
    if st.leading() == "R":
        st.marker(me, card, [[("R", -1)], [("R", -2)]], True)
    else:
        st.move_markers([("R", -1)])


@ability("ace-fighter")
def _ace(st: State, me: int, card: str) -> None:
    if st.leading() == "G":
        st.marker(me, card, [[("R", 1)], [("R", 2)]], True)
    else:
        st.move_markers([("R", 1)])


@ability("drowned-deserter")
def _deserter(st: State, me: int, card: str) -> None:
    lead = st.leading()
    if lead:
        st.marker(me, card, [[(lead, -1)], [(trailing(lead), 2)]], True)


@ability("keen-koi")
def _koi(st: State, me: int, card: str) -> None:
    lead = st.leading()
    if lead:
        st.move_markers([(lead, -1), (trailing(lead), 1)])


@ability("triple-sword-lizard")
def _triple(st: State, me: int, card: str) -> None:
    lead = st.leading()
    if lead:
        st.marker(me, card, [[(lead, -1)], [(lead, -3)]], True)


@ability("naughty-necromancer")
def _necromancer(st: State, me: int, card: str) -> None:
    x = min(3, len(st.graveyard))
    st.move_markers([("R", x), ("G", x)])


@ability("polar-protector")
def _polar(st: State, me: int, card: str) -> None:
    x = min(3, sum(1 for _, u in st.parties[me] if not u))
    st.marker(me, card, [[("R", -x)], [("G", x)]], True)


@ability("well-shaved-wizard")
def _shaved(st: State, me: int, card: str) -> None:
    ups = [c for c, u in st.parties[me] if u]
    # X = distinct non-Imperial factions among the members of the face-up cards (legends R14): the Emperor
    # brings its 3 non-Imperial base factions, a Guardian card the Guardians.
    x = sum(1 for f in (HT, WF, UD, GUARDIANS) if any(is_of(c, f) for c in ups))
    st.marker(me, card, [[("R", x)], [("G", -x)]], True)


@ability("tentacle-oracle")
def _oracle(st: State, me: int, card: str) -> None:
    if not st.wilderness:
        return
    top = st.wilderness[0]
    st.moved(top, None, "w", None)
    if not is_of(top, UD):
        st.move_markers([("R", -3), ("G", -3)])


@ability("potato-privateer")
def _potato(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=card, filter=Filter.SEAT, then=Cont.COUNT,
        ctx={"ps": everyone(st), "fac": IA, "mv": ["G"], "sg": 1},
    ))


@ability("almost-evil-scholar")
def _evil_scholar(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=card, filter=Filter.SEAT, then=Cont.COUNT,
        ctx={"ps": everyone(st), "fac": HT, "mv": ["R"], "sg": 1},
    ))


@ability("krill-keeper")
def _krill(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=card, filter=Filter.SEAT, then=Cont.COUNT,
        ctx={"ps": everyone(st), "fac": UD, "mv": ["R", "G"], "sg": -1},
    ))


@cont("count")
def _c_count(st: State, fr: Frame, p: int) -> None:
    x = min(3, st.count_up(p, fr["fac"])) * fr["sg"]
    st.move_markers([(m, x) for m in fr["mv"]])


@ability("nagging-northman")
def _nagging(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_TAVERN, seat=me, card=card, filter=Filter.TAVERN, then=Cont.TAVERN_DISCARD, may=True,
        ctx={"fac": HT, "mv": [["R", 2]]},
    ))


@ability("angry-priestess")
def _priestess(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_TAVERN, seat=me, card=card, filter=Filter.TAVERN, then=Cont.TAVERN_DISCARD, may=True,
        ctx={"fac": UD, "mv": [["G", -2]]},
    ))


@cont("tavern-discard")
def _c_tavern_discard(st: State, fr: Frame, slot: int | None) -> None:
    if slot is None:
        return
    c = st.tavern[slot]
    st.tavern[slot] = None
    st.wilderness.insert(0, c)
    st.moved(c, None, "w", None)
    st.move_markers([(m, d) for m, d in fr["mv"]])


# ====================================================================== decisions by other seats


@ability("doubtful-priest")
def _priest(st: State, me: int, card: str) -> None:
    st.later("priest-extra", me=me, card=card)
    st.marker(me, card, [[("R", 2)], [("R", -2)]], True, chooser=(me + 1) % st.players)


@op("priest-extra")
def _op_priest_extra(st: State, fr: Frame) -> None:
    # Asked whenever the hand is not empty, even with only Imperial cards (then only "skip"): skipping the
    # question would tell the table that the hand holds no other card.
    if st.hands[fr["me"]]:
        st.push(Ask(
            kind=Kind.EXTRA_PLAY, seat=fr["me"], card=fr["card"], filter=Filter.HAND, then=Cont.EXTRA,
            may=True, ctx={"prefix": "play", "nfac": IA, "always": True},
        ))


@cont("extra")
def _c_extra(st: State, fr: Frame, c: str | None) -> None:
    if c is None:
        return
    me = fr["seat"]
    st.hands[me].remove(c)
    st.parties[me].append((c, True))
    st.moved(c, f"h{me}", None, None)
    st.resolve(me, c)


@ability("saber-toothed-troll")
def _saber(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.SABER,
        ctx={"ps": st.others(me), "up": True},
    ))


@cont("saber")
def _c_saber(st: State, fr: Frame, v: Any) -> None:
    me, (p, i) = fr["seat"], v
    c, _ = st.remove_hero(p, i)
    st.hands[me].append(c)
    st.moved(c, None, f"h{me}", None)
    st.marker(me, fr["card"], [[("G", 2)], [("G", -2)]], True, chooser=p)


@ability("will-bending-witch")
def _will_witch(st: State, me: int, card: str) -> None:
    n = st.players
    for k in range(n - 1, 0, -1):  # pushed last-first so seat me+1 decides first
        st.push(Ask(
            kind=Kind.PICK_HAND, seat=(me + k) % n, card=card, filter=Filter.HAND, then=Cont.WITCH,
            secret=True,
        ))


@cont("witch")
def _c_witch(st: State, fr: Frame, c: str) -> None:
    p = fr["seat"]
    st.hands[p].remove(c)
    st.wilderness.insert(0, c)
    st.moved(c, f"h{p}", "w", (p,))


@ability("underwater-artist")
def _artist(st: State, me: int, card: str) -> None:
    st.push(Ask(kind=Kind.FACTION, seat=me, card=card, filter=Filter.FACTION, then=Cont.ARTIST))


@cont("artist")
def _c_artist(st: State, fr: Frame, f: str) -> None:
    me = fr["seat"]
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=fr["card"], filter=Filter.SEAT, then=Cont.ARTIST_SEAT,
        ctx={"ps": st.others(me), "named": f},
    ))


@cont("artist-seat")
def _c_artist_seat(st: State, fr: Frame, p: int) -> None:
    st.push(Ask(
        kind=Kind.PICK_HAND, seat=p, card=fr["card"], filter=Filter.HAND, then=Cont.ARTIST_GIVE,
        ctx={"fac": fr["named"], "to": fr["seat"]},
    ))


@cont("artist-give")
def _c_artist_give(st: State, fr: Frame, c: str) -> None:
    p, me = fr["seat"], fr["to"]
    st.hands[p].remove(c)
    st.hands[me].append(c)
    st.moved(c, f"h{p}", f"h{me}", None)


# ====================================================================== taking from hands


@ability("curious-cat-lover", "resilient-rearguard")
def _take_random(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=card, filter=Filter.SEAT, then=Cont.TAKE_RANDOM,
        ctx={"ps": st.others(me), "cond": "hand", "down": card == "curious-cat-lover"},
    ))


@cont("take-random")
def _c_take_random(st: State, fr: Frame, p: int) -> None:
    me = fr["seat"]
    hand = st.hands[p]
    c = hand.pop(st.rng("take").randrange(len(hand)))
    if fr["down"]:
        st.parties[me].append((c, False))
        st.moved(c, f"h{p}", f"d{me}", (me, p))
    else:
        st.hands[me].append(c)
        st.moved(c, f"h{p}", f"h{me}", (me, p))


# ====================================================================== Tavern


@ability("hopeful-salamander")
def _salamander(st: State, me: int, card: str) -> None:
    st.push(Ask(kind=Kind.PICK_TAVERN, seat=me, card=card, filter=Filter.TAVERN, then=Cont.SALAMANDER))


@cont("salamander")
def _c_salamander(st: State, fr: Frame, slot: int) -> None:
    c = st.tavern[slot]
    st.tavern[slot] = None
    st.parties[fr["seat"]].append((c, True))


@ability("groggy-preacher")
def _preacher(st: State, me: int, card: str) -> None:
    if _f_tavern(st, {"asif": st.asif}) and _f_hero(st, {"ps": [me], "up": True, "asif": st.asif}):
        st.push(Ask(kind=Kind.PICK_TAVERN, seat=me, card=card, filter=Filter.TAVERN, then=Cont.PREACHER))


@cont("preacher")
def _c_preacher(st: State, fr: Frame, slot: int) -> None:
    me = fr["seat"]
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.SWAP_TAVERN,
        ctx={"ps": [me], "up": True, "slot": slot},
    ))


@ability("half-headed-wizard")
def _wizard(st: State, me: int, card: str) -> None:
    if _f_tavern(st, {"asif": st.asif}) and _f_hero(st, {"ps": st.others(me), "up": True, "asif": st.asif}):
        st.push(Ask(kind=Kind.PICK_TAVERN, seat=me, card=card, filter=Filter.TAVERN, then=Cont.WIZARD))


@cont("wizard")
def _c_wizard(st: State, fr: Frame, slot: int) -> None:
    me = fr["seat"]
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.SWAP_TAVERN,
        ctx={"ps": st.others(me), "up": True, "slot": slot},
    ))


@cont("swap-tavern")
def _c_swap_tavern(st: State, fr: Frame, v: Any) -> None:
    p, i = v
    slot = fr["slot"]
    hero, _ = st.parties[p][i]
    st.parties[p][i] = (st.tavern[slot], True)
    st.tavern[slot] = hero


@ability("battle-connoisseur")
def _connoisseur(st: State, me: int, card: str) -> None:
    cards = [c for c in st.tavern if c is not None]
    if cards:
        st.tavern = [None, None, None]
        keep_discard(st, me, card, cards)


@ability("crow-carrier")
def _crow(st: State, me: int, card: str) -> None:
    cards = st.graveyard[:2]
    if cards:
        del st.graveyard[:2]
        keep_discard(st, me, card, cards)


def keep_discard(st: State, me: int, card: str, cards: list[str]) -> None:
    """Keep 1 of the public ``cards`` face down, discard the rest; as if played, a card of the resolution
    chain cannot be kept, and when only such cards remain they are all discarded."""
    if st.asif and all(c in st.chain for c in cards):
        for o in cards:
            st.wilderness.insert(0, o)
            st.moved(o, None, "w", None)
        return
    st.push(Ask(
        kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.KEEP_DISCARD, secret=True,
        ctx={"pub": cards},
    ))


@cont("keep-discard")
def _c_keep_discard(st: State, fr: Frame, c: str) -> None:
    """Put the chosen card face down into the party; discard the rest (Connoisseur, Crow, Whaleman)."""
    me = fr["seat"]
    cards = list(fr.get("hid", fr.get("pub")))
    cards.remove(c)
    st.parties[me].append((c, False))
    st.moved(c, None, f"d{me}", (me,))
    for o in cards:
        st.wilderness.insert(0, o)
        st.moved(o, None, "w", (me,))


@cont("keep-hand")
def _c_keep_hand(st: State, fr: Frame, c: str) -> None:
    """Put the chosen card face down into the party, the other into the hand (Deep Sea Squire, Chopper)."""
    me = fr["seat"]
    cards = list(fr["hid"])
    cards.remove(c)
    st.parties[me].append((c, False))
    st.moved(c, None, f"d{me}", (me,))
    for o in cards:
        st.hands[me].append(o)
        st.moved(o, None, f"h{me}", (me,))


@ability("resurrected-ram")
def _ram(st: State, me: int, card: str) -> None:
    st.discard_tavern(lambda c: True)
    held = held_slots(st)
    for i in range(3):
        if not st.graveyard:
            break
        if i not in held:
            st.tavern[i] = st.graveyard.pop(0)


# ====================================================================== Harbor, Wilderness and Graveyard


@ability("pessimistic-whaleman")
def _whaleman(st: State, me: int, card: str) -> None:
    cards = draw_limbo(st, me, 2)
    if cards:
        st.push(Ask(
            kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.KEEP_DISCARD, secret=True,
            ctx={"hid": cards},
        ))


@ability("deep-sea-squire")
def _deep_sea(st: State, me: int, card: str) -> None:
    cards = draw_limbo(st, me, 2)
    if cards:
        st.push(Ask(
            kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.KEEP_HAND, secret=True,
            ctx={"hid": cards},
        ))


@ability("seaweed-chopper")
def _chopper(st: State, me: int, card: str) -> None:
    cards = st.wilderness[:2]
    if cards:
        del st.wilderness[:2]
        for c in cards:
            st.moved(c, "w", None, (me,))
        st.push(Ask(
            kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.KEEP_HAND, secret=True,
            ctx={"hid": cards},
        ))


@ability("joyless-chief")
def _chief(st: State, me: int, card: str) -> None:
    cards = st.wilderness[:2]
    if cards:
        del st.wilderness[:2]
        for c in cards:
            st.moved(c, "w", None, (me,))
        st.push(Ask(
            kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.CHIEF, secret=True,
            ctx={"hid": cards},
        ))


@cont("chief")
def _c_chief(st: State, fr: Frame, c: str) -> None:
    me = fr["seat"]
    rest = [o for o in fr["hid"] if o != c]
    st.parties[me].append((c, False))
    st.moved(c, None, f"d{me}", (me,))
    st.wilderness[:0] = rest
    for o in rest:
        st.moved(o, None, "w", (me,))


@ability("firm-fishmonger")
def _fishmonger(st: State, me: int, card: str) -> None:
    cards = st.wilderness[:3]
    if not cards:
        return
    for c in cards:
        st.learn(me, c, "w")
    if not st.heroes([me], False):
        return
    del st.wilderness[:3]
    for c in cards:
        st.moved(c, "w", None, (me,))
    st.push(Ask(
        kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.FISH_PICK, secret=True,
        ctx={"hid": cards},
    ))


@cont("fish-pick")
def _c_fish_pick(st: State, fr: Frame, c: str) -> None:
    me = fr["seat"]
    order = [c] + [o for o in fr["hid"] if o != c]
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.FISH_SWAP,
        ctx={"ps": [me], "up": False, "hid": order},
    ))


@cont("fish-swap")
def _c_fish_swap(st: State, fr: Frame, v: Any) -> None:
    me, (_, i) = fr["seat"], v
    chosen, orig = fr["hid"][0], fr["hid"]
    hero, _ = st.parties[me][i]
    st.parties[me][i] = (chosen, False)
    st.moved(chosen, None, f"d{me}", (me,))
    back = [o for o in orig[1:]]
    st.wilderness[:0] = [hero, *back]
    for o in back:
        st.moved(o, None, "w", (me,))
    st.moved(hero, f"d{me}", "w", (me,))


@ability("wrapped-warrior")
def _wrapped(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.WARRIOR, ctx={"src": "grave"},
    ))


@cont("warrior")
def _c_warrior(st: State, fr: Frame, c: str) -> None:
    me = fr["seat"]
    st.graveyard.remove(c)
    st.hands[me].append(c)
    st.moved(c, None, f"h{me}", None)


@ability("mummy-mystic")
def _mummy(st: State, me: int, card: str) -> None:
    if st.graveyard:
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.MUMMY, may=True,
            ctx={"ps": [me], "up": True},
        ))


@cont("mummy")
def _c_mummy(st: State, fr: Frame, v: Any) -> None:
    if v is None:
        return
    me, (_, i) = fr["seat"], v
    top = st.graveyard.pop(0)
    before = len(st.parties[me])
    st.bury(me, i, me)
    if len(st.parties[me]) < before:
        st.parties[me].insert(i, (top, True))
    else:
        st.parties[me].append((top, True))


@ability("miniature-merman")
def _merman(st: State, me: int, card: str) -> None:
    opts = [o for o, pile in (("pile graveyard", st.graveyard), ("pile wilderness", st.wilderness)) if pile]
    if opts:
        st.push(Ask(
            kind=Kind.PILE, seat=me, card=card, filter=Filter.FIXED, then=Cont.MERMAN, ctx={"opts": opts},
        ))


@cont("merman")
def _c_merman(st: State, fr: Frame, o: str) -> None:
    me = fr["seat"]
    if o == "pile graveyard":
        cards = st.graveyard[:2]
        del st.graveyard[:2]
        src, seen = None, None
    else:
        cards = st.wilderness[:2]
        del st.wilderness[:2]
        src, seen = "w", (me,)
    for c in cards:
        st.hands[me].append(c)
        st.moved(c, src, f"h{me}", seen)


# ====================================================================== party to party


@ability("vegetarian-sharkguard")
def _sharkguard(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.SHARK,
        ctx={"ps": st.others(me), "up": True},
    ))


@cont("shark")
def _c_shark(st: State, fr: Frame, v: Any) -> None:
    c, _ = st.remove_hero(*v)
    st.wilderness.insert(0, c)
    st.moved(c, None, "w", None)


@ability("underestimated-squire")
def _squire(st: State, me: int, card: str) -> None:
    if st.hands[me]:
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.SQUIRE, may=True,
            ctx={"ps": [me], "up": False},
        ))


@cont("squire")
def _c_squire(st: State, fr: Frame, v: Any) -> None:
    if v is not None:
        me = fr["seat"]
        st.push(Ask(
            kind=Kind.PICK_HAND, seat=me, card=fr["card"], filter=Filter.HAND, then=Cont.SQUIRE_SWAP,
            secret=True, ctx={"pos": list(v)},
        ))


@cont("squire-swap")
def _c_squire_swap(st: State, fr: Frame, c: str) -> None:
    me, (_, i) = fr["seat"], fr["pos"]
    hero, _ = st.parties[me][i]
    st.parties[me][i] = (c, False)
    st.hands[me].remove(c)
    st.hands[me].append(hero)
    st.moved(c, f"h{me}", f"d{me}", (me,))
    st.moved(hero, f"d{me}", f"h{me}", (me,))


@ability("queer-quartermaster")
def _quartermaster(st: State, me: int, card: str) -> None:
    if st.hands[me]:
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.QM, may=True,
            ctx={"ps": [me], "up": True, "nfac": IA},
        ))


@cont("qm")
def _c_qm(st: State, fr: Frame, v: Any) -> None:
    if v is not None:
        st.push(Ask(
            kind=Kind.PICK_HAND, seat=fr["seat"], card=fr["card"], filter=Filter.HAND, then=Cont.HAND_SWAP_UP,
            ctx={"pos": list(v)},
        ))


@ability("careful-chameleon")
def _chameleon(st: State, me: int, card: str) -> None:
    if st.hands[me]:
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.CHAMELEON,
            ctx={"ps": st.others(me), "up": True},
        ))


@cont("chameleon")
def _c_chameleon(st: State, fr: Frame, v: Any) -> None:
    st.push(Ask(
        kind=Kind.PICK_HAND, seat=fr["seat"], card=fr["card"], filter=Filter.HAND, then=Cont.HAND_SWAP_UP,
        ctx={"pos": list(v)},
    ))


@cont("hand-swap-up")
def _c_hand_swap_up(st: State, fr: Frame, c: str) -> None:
    """A hand card takes a face-up hero's place; the hero goes to the hand (Quartermaster, Chameleon)."""
    me, (p, i) = fr["seat"], fr["pos"]
    hero, _ = st.parties[p][i]
    st.parties[p][i] = (c, True)
    st.hands[me].remove(c)
    st.hands[me].append(hero)
    st.moved(c, f"h{me}", None, None)
    st.moved(hero, None, f"h{me}", None)


@ability("goblin-cryptographer")
def _cryptographer(st: State, me: int, card: str) -> None:
    ps = [me] if st.players == 2 else everyone(st)
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.CRYPTO, may=True,
        ctx={"ps": ps, "up": True},
    ))


@cont("crypto")
def _c_crypto(st: State, fr: Frame, v: Any) -> None:
    if v is None:
        return
    me, (p, i) = fr["seat"], v
    if st.players == 2:  # the opponent is the only destination: no choice
        _c_crypto_move(st, {"pos": [p, i]}, 1 - me)
        return
    dest = [q for q in range(st.players) if q not in (me, p)]
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=fr["card"], filter=Filter.SEAT, then=Cont.CRYPTO_MOVE,
        ctx={"ps": dest, "pos": [p, i]},
    ))


@cont("crypto-move")
def _c_crypto_move(st: State, fr: Frame, q: int) -> None:
    p, i = fr["pos"]
    c, _ = st.remove_hero(p, i)
    st.parties[q].append((c, True))


@ability("careless-cartographer")
def _cartographer(st: State, me: int, card: str) -> None:
    if st.heroes([me], False):
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.CARTO,
            ctx={"ps": st.others(me), "up": False},
        ))


@cont("carto")
def _c_carto(st: State, fr: Frame, v: Any) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=fr["seat"], card=fr["card"], filter=Filter.HERO, then=Cont.CARTO_SWAP,
        ctx={"ps": [fr["seat"]], "up": False, "pos": list(v)},
    ))


@cont("carto-swap")
def _c_carto_swap(st: State, fr: Frame, v: Any) -> None:
    me, (p, i), (_, j) = fr["seat"], fr["pos"], v
    theirs, mine = st.parties[p][i][0], st.parties[me][j][0]
    st.parties[p][i] = (mine, False)
    st.parties[me][j] = (theirs, False)
    st.moved(mine, f"d{me}", f"d{p}", (me, p))
    st.moved(theirs, f"d{p}", f"d{me}", (me, p))


from . import legends as _legends  # noqa: E402,F401  (registers the abilities of the legends module)
