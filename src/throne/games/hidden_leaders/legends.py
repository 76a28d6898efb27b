"""Abilities of the Guardian heroes of the ``legends`` module (legends §4–§5.2).

Same conventions as ``effects``: an ability pushes decisions and later steps; a step pushed first runs last.
A decision that buries pushes its follow-up first, so that the Fate of a buried Guardian card (pushed by
``State.bury``) resolves before the resolution goes on (legends R2).
"""

from __future__ import annotations

from typing import Any

from . import moves as _moves
from .cards import FACTIONS, GUARDIANS
from .effects import _c_hand_down, _f_hero, _f_tavern, bury_ask, draw_limbo, everyone
from .frames import Ask, Cont, Filter, Kind
from .state import Cand, Frame, State, ability, cont, filt, op

HT, IA, WF, UD = FACTIONS


def after(st: State, me: int) -> list[int]:
    """The other seats in turn order, starting after ``me``."""
    return [(me + k) % st.players for k in range(1, st.players)]


# ====================================================================== turning over, taking heroes


@ability("obliging-ogre")
def _ogre(st: State, me: int, card: str) -> None:
    # min(2, own face-up) turns: the second ask finds no candidate when only one hero was face up
    for _ in range(2):
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.TURN_OVER,
            ctx={"ps": [me], "up": True},
        ))


@ability("crabby-knight")
def _crabby(st: State, me: int, card: str) -> None:
    for p in reversed(after(st, me)):  # pushed last-first: the seat after ``me`` comes first
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.TURN_OVER, ctx={"ps": [p]},
        ))


@ability("sleepy-hop-goblin")
def _hop_goblin(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.HOP_GOBLIN,
        ctx={"ps": st.others(me), "up": False},
    ))


@cont("hop-goblin")
def _c_hop_goblin(st: State, fr: Frame, v: Any) -> None:
    me, (p, i) = fr["seat"], v
    c, _ = st.remove_hero(p, i)
    st.parties[me].append((c, False))
    # the place is public: a seat that knew the card there follows it
    seen = (me, p, *(s for s, k in enumerate(st.known) if k.get(c) == f"d{p}"))
    st.moved(c, f"d{p}", f"d{me}", seen)


# ====================================================================== burying


@ability("gigantic-duo")
def _duo(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.BURY, may=True,
        ctx={"ps": everyone(st), "up": True, "fac": WF},
    ))
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.BURY, may=True,
        ctx={"ps": everyone(st), "up": True, "fac": IA},
    ))


@ability("mended-colossus")
def _colossus(st: State, me: int, card: str) -> None:
    n = st.players
    bury_ask(st, me, card, True, ps=[(me - 1) % n])
    bury_ask(st, me, card, True, ps=[(me + 1) % n])


@ability("huggable-hulk")
def _hulk(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.BURY,
        ctx={"ps": [me], "up": True, "nfac": GUARDIANS},
    ))


@ability("baneful-beacon")
def _beacon(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.BEACON, may=True,
        ctx={"ps": everyone(st), "up": True, "fac": GUARDIANS, "n": 2},
    ))


@cont("beacon")
def _c_beacon(st: State, fr: Frame, v: Any) -> None:
    if v is None:
        return
    me = fr["seat"]
    if fr["n"] > 1:
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.BEACON, may=True,
            ctx={"ps": everyone(st), "up": True, "fac": GUARDIANS, "n": 1},
        ))
    st.bury(v[0], v[1], me)


@ability("twiggy-tree-keeper")
def _twiggy(st: State, me: int, card: str) -> None:
    if not st.heroes(everyone(st), False):
        return
    bury_ask(st, me, card, False)
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.LOOK_MUST,
        ctx={"ps": st.others(me), "up": False, "n": 2},
    ))


@cont("look-must")
def _c_look_must(st: State, fr: Frame, v: Any) -> None:
    """A mandatory look (Twiggy Tree Keeper, R16): the second look must be at another hero."""
    me, (p, i) = fr["seat"], v
    st.learn(me, st.parties[p][i][0], f"d{p}")
    if fr["n"] > 1:
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.LOOK_MUST,
            ctx={"ps": fr["ps"], "up": False, "n": 1, "exi": [*fr.get("exi", []), [p, i]]},
        ))


@ability("philantropic-phantom")
def _phantom(st: State, me: int, card: str) -> None:
    for p in reversed(after(st, me)):  # each victim chooses (and so resolves the Fate) in turn order
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=p, card=card, filter=Filter.HERO, then=Cont.BURY, ctx={"ps": [p]},
        ))


# ====================================================================== swaps


def _swap_ask(st: State, me: int, card: str, theirs: dict[str, Any], mine: dict[str, Any]) -> None:
    """Other seat's face-up hero first, then own (R20); only when both sides have one."""
    other = {"ps": st.others(me), "up": True, "asif": st.asif, **theirs}
    own = {"ps": [me], "up": True, "asif": st.asif, **mine}
    if _f_hero(st, other) and _f_hero(st, own):
        st.push(Ask(
            kind=Kind.PICK_HERO, seat=me, card=card, filter=Filter.HERO, then=Cont.SWAP_OTHER,
            ctx={"ps": st.others(me), "up": True, "mine": mine, **theirs},
        ))


@cont("swap-other")
def _c_swap_other(st: State, fr: Frame, v: Any) -> None:
    me = fr["seat"]
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.SWAP_UP,
        ctx={"ps": [me], "up": True, "pos": list(v), **fr["mine"]},
    ))


@cont("swap-up")
def _c_swap_up(st: State, fr: Frame, v: Any) -> None:
    """Two face-up heroes take each other's places; neither resolves."""
    (p, i), (q, j) = fr["pos"], v
    theirs, mine = st.parties[p][i][0], st.parties[q][j][0]
    st.parties[p][i] = (mine, True)
    st.parties[q][j] = (theirs, True)


@ability("fungified-troll")
def _troll(st: State, me: int, card: str) -> None:
    _swap_ask(st, me, card, {"facs": [UD, IA]}, {})


@ability("valuable-vindicator")
def _vindicator(st: State, me: int, card: str) -> None:
    _swap_ask(st, me, card, {"facs": [WF, HT]}, {})


@ability("severed-seraph")
def _seraph(st: State, me: int, card: str) -> None:
    _swap_ask(st, me, card, {"fac": GUARDIANS}, {"fac": GUARDIANS})


@ability("patient-protector")
def _protector(st: State, me: int, card: str) -> None:
    st.later("protector-pair", me=me, card=card, n=2, ot=[c for c in st.tavern if c is not None],
             oh=[c for c, u in st.parties[me] if u])


@op("protector-pair")
def _op_protector_pair(st: State, fr: Frame) -> None:
    """One Tavern card ↔ own face-up hero pair, among the cards in those places when the ability began."""
    me = fr["me"]
    if not (_f_tavern(st, {"asif": st.asif, "only": fr["ot"]})
            and _f_hero(st, {"ps": [me], "up": True, "asif": st.asif, "only": fr["oh"]})):
        return
    if fr["n"] > 1:
        st.later("protector-pair", me=me, card=fr["card"], n=1, ot=fr["ot"], oh=fr["oh"])
    st.push(Ask(
        kind=Kind.PICK_TAVERN, seat=me, card=fr["card"], filter=Filter.TAVERN, then=Cont.PROTECTOR,
        ctx={"only": fr["ot"], "oh": fr["oh"]},
    ))


@cont("protector")
def _c_protector(st: State, fr: Frame, slot: int) -> None:
    me = fr["seat"]
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.SWAP_TAVERN,
        ctx={"ps": [me], "up": True, "only": fr["oh"], "slot": slot},
    ))


@ability("graceful-griffin")
def _griffin(st: State, me: int, card: str) -> None:
    st.later("griffin-pair", me=me, card=card, n=2, od=[c for c, u in st.parties[me] if not u],
             oh=list(st.hands[me]))


@op("griffin-pair")
def _op_griffin_pair(st: State, fr: Frame) -> None:
    me = fr["me"]
    if not any(c in fr["oh"] for c in st.hands[me]):
        return
    st.push(Ask(
        kind=Kind.PICK_HERO, seat=me, card=fr["card"], filter=Filter.HERO, then=Cont.GRIFFIN, may=True,
        ctx={"ps": [me], "up": False, "only": fr["od"], "oh": fr["oh"], "n": fr["n"]},
    ))


@cont("griffin")
def _c_griffin(st: State, fr: Frame, v: Any) -> None:
    if v is None:
        return
    me = fr["seat"]
    if fr["n"] > 1:
        st.later("griffin-pair", me=me, card=fr["card"], n=1, od=fr["only"], oh=fr["oh"])
    st.push(Ask(
        kind=Kind.PICK_HAND, seat=me, card=fr["card"], filter=Filter.HAND, then=Cont.SQUIRE_SWAP, secret=True,
        ctx={"pos": list(v), "only": fr["oh"]},
    ))


# ====================================================================== hands


@ability("surprised-sapling")
def _sapling(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=card, filter=Filter.SEAT, then=Cont.SAPLING,
        ctx={"ps": st.others(me), "cond": "hand"},
    ))


@cont("sapling")
def _c_sapling(st: State, fr: Frame, p: int) -> None:
    me = fr["seat"]
    for c in st.hands[p]:
        st.learn(me, c, f"h{p}")
    st.push(Ask(
        kind=Kind.PICK_CARD, seat=me, card=fr["card"], filter=Filter.OTHER_HAND, then=Cont.SAPLING_TAKE,
        secret=True, ctx={"target": p},
    ))


@filt("other-hand")
def _f_other_hand(st: State, fr: Frame) -> list[Cand]:
    """The cards of another seat's hand, which the deciding seat has looked at."""
    return [(_moves.card("pick", c), c) for c in st.hands[fr["target"]]]


@cont("sapling-take")
def _c_sapling_take(st: State, fr: Frame, c: str) -> None:
    me, p = fr["seat"], fr["target"]
    st.hands[p].remove(c)
    st.parties[me].append((c, False))
    st.moved(c, f"h{p}", f"d{me}", (me, p))


@ability("misinformed-mechatron")
def _mechatron(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_HAND, seat=me, card=card, filter=Filter.HAND, then=Cont.MECHATRON, may=True,
        secret=True, ctx={"n": 2},
    ))


@cont("mechatron")
def _c_mechatron(st: State, fr: Frame, c: str | None) -> None:
    if c is None:
        return
    _c_hand_down(st, fr, c)
    if fr["n"] > 1:
        st.push(Ask(
            kind=Kind.PICK_HAND, seat=fr["seat"], card=fr["card"], filter=Filter.HAND, then=Cont.MECHATRON,
            may=True, secret=True, ctx={"n": 1},
        ))


@ability("hard-shelled-titan")
def _titan(st: State, me: int, card: str) -> None:
    st.later("titan-keep", me=me, seat=me, card=card, hid=[])
    for p in reversed(after(st, me)):  # a seat with an empty hand has no option and is not asked (R9)
        st.push(Ask(
            kind=Kind.PICK_HAND, seat=p, card=card, filter=Filter.HAND, then=Cont.TITAN_GIVE, secret=True,
            ctx={"to": me},
        ))


@cont("titan-give")
def _c_titan_give(st: State, fr: Frame, c: str) -> None:
    p, me = fr["seat"], fr["to"]
    st.hands[p].remove(c)
    for k in range(len(st.stack) - 1, -1, -1):  # frames are shared between copies: replace, never mutate
        f = st.stack[k]
        if f["op"] == "titan-keep":
            st.stack[k] = {**f, "hid": [*f["hid"], c]}
            break
    st.moved(c, f"h{p}", None, (me, p))


@op("titan-keep")
def _op_titan_keep(st: State, fr: Frame) -> None:
    if fr["hid"]:
        st.push(Ask(
            kind=Kind.PICK_CARD, seat=fr["me"], card=fr["card"], filter=Filter.PICK, then=Cont.KEEP_DISCARD,
            secret=True, ctx={"hid": list(fr["hid"])},
        ))


# ====================================================================== piles


@ability("demonic-darter")
def _darter(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.DARTER, may=True,
        ctx={"src": "grave", "fac": GUARDIANS, "n": 3},
    ))


@cont("darter")
def _c_darter(st: State, fr: Frame, c: str | None) -> None:
    if c is None:
        return
    me = fr["seat"]
    st.graveyard.remove(c)
    st.hands[me].append(c)
    st.moved(c, None, f"h{me}", None)
    if fr["n"] > 1:
        st.push(Ask(
            kind=Kind.PICK_CARD, seat=me, card=fr["card"], filter=Filter.PICK, then=Cont.DARTER, may=True,
            ctx={"src": "grave", "fac": GUARDIANS, "n": fr["n"] - 1},
        ))


@ability("obnoxious-nightmare")
def _nightmare(st: State, me: int, card: str) -> None:
    if st.graveyard:
        st.push(Ask(
            kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.NIGHTMARE,
            ctx={"src": "grave"},
        ))


@cont("nightmare")
def _c_nightmare(st: State, fr: Frame, c: str) -> None:
    me = fr["seat"]
    st.graveyard.remove(c)
    st.parties[me].append((c, False))
    st.moved(c, None, f"d{me}", None)


@ability("abysmal-automaton")
def _automaton(st: State, me: int, card: str) -> None:
    cards = draw_limbo(st, me, 5)
    if cards:
        st.push(Ask(
            kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.AUTOMATON, may=True,
            secret=True, ctx={"hid": cards, "n": 3},
        ))


@cont("automaton")
def _c_automaton(st: State, fr: Frame, c: str | None) -> None:
    """Up to 3 of the looked-at cards into the hand; stopping (or the third card) discards the rest."""
    me = fr["seat"]
    rest = list(fr["hid"])
    if c is not None:
        rest.remove(c)
        st.hands[me].append(c)
        st.moved(c, None, f"h{me}", (me,))
        if fr["n"] > 1 and rest:
            st.push(Ask(
                kind=Kind.PICK_CARD, seat=me, card=fr["card"], filter=Filter.PICK, then=Cont.AUTOMATON,
                may=True, secret=True, ctx={"hid": rest, "n": fr["n"] - 1},
            ))
            return
    for o in rest:
        st.wilderness.insert(0, o)
        st.moved(o, None, "w", (me,))


@ability("shellfish-defender")
def _shellfish(st: State, me: int, card: str) -> None:
    cards = st.wilderness[:4]
    if cards:
        del st.wilderness[:4]
        for c in cards:
            st.moved(c, "w", None, (me,))
        st.push(Ask(
            kind=Kind.PICK_CARD, seat=me, card=card, filter=Filter.PICK, then=Cont.SHELLFISH, secret=True,
            ctx={"hid": cards},
        ))


@cont("shellfish")
def _c_shellfish(st: State, fr: Frame, c: str) -> None:
    me = fr["seat"]
    rest = [o for o in fr["hid"] if o != c]
    st.parties[me].append((c, False))
    st.moved(c, None, f"d{me}", (me,))
    if rest:  # with a single card only the face-down placement happens (R11)
        st.push(Ask(
            kind=Kind.PICK_CARD, seat=me, card=fr["card"], filter=Filter.PICK, then=Cont.SHELLFISH_HAND,
            secret=True, ctx={"hid": rest},
        ))


@cont("shellfish-hand")
def _c_shellfish_hand(st: State, fr: Frame, c: str) -> None:
    me = fr["seat"]
    rest = [o for o in fr["hid"] if o != c]
    st.hands[me].append(c)
    st.moved(c, None, f"h{me}", (me,))
    st.wilderness[:0] = rest  # back on top, in their order
    for o in rest:
        st.moved(o, None, "w", (me,))


# ====================================================================== seats and markers


@ability("possessed-poodle")
def _poodle(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=card, filter=Filter.SEAT, then=Cont.POODLE,
        ctx={"ps": st.others(me)},
    ))


@cont("poodle")
def _c_poodle(st: State, fr: Frame, p: int) -> None:
    if p not in st.skips:
        st.skips = sorted([*st.skips, p])


@ability("oppressed-ocean")
def _ocean(st: State, me: int, card: str) -> None:
    st.push(Ask(
        kind=Kind.PICK_SEAT, seat=me, card=card, filter=Filter.SEAT, then=Cont.OCEAN,
        ctx={"ps": everyone(st)},
    ))


@cont("ocean")
def _c_ocean(st: State, fr: Frame, p: int) -> None:
    x = min(4, st.count_up(p, GUARDIANS))
    if x:
        st.marker(fr["seat"], fr["card"], [[("R", -x)], [("G", -x)], [("R", -x), ("G", -x)]], True)
