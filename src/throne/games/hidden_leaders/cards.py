"""Card, leader and faction data of Hidden Leaders (rule book §1 and §6).

Each hero is one data row. ``marker_code`` is the machine form of a marker effect that needs no information
from the ability: moves separated by spaces form one option, ``|`` separates OR options and ``/`` marks an
AND/OR pair (each single move plus both). An empty code means the marker effect is computed by the ability
(conditional cards and X cards) or that the card has none.
"""

from __future__ import annotations

from dataclasses import dataclass

FACTIONS: tuple[str, ...] = ("hill-tribes", "imperial-army", "water-folk", "undead")
#: the fifth faction of the ``legends`` module (Forgotten Legends); not one of the four base FACTIONS
GUARDIANS = "guardians"
MODULES: tuple[str, ...] = ("core", "kickstarter", "queens", "legends")
EMPEROR = "deceased-emperor"
KEEPER = "keeper-of-discord"
MOTHER = "mother-of-guardians"

#: Face-up heroes that end the game: THRESHOLDS[variant][players].
THRESHOLDS: dict[str, dict[int, int]] = {
    "full": {2: 8, 3: 7, 4: 7, 5: 6, 6: 5},
    "basic": {2: 7, 3: 6, 4: 6, 5: 5, 6: 4},
}


@dataclass(frozen=True, slots=True)
class Leader:
    id: str
    name: str
    number: int
    factions: tuple[str, str]


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    name: str
    faction: str | None
    module: str
    markers: str
    ability: str
    marker_code: str

    @property
    def guardian(self) -> bool:
        """A Guardian card (legends §1.1): the 24 Guardian heroes and Mother of Guardians."""
        return self.module == "legends"

    def is_of(self, faction: str) -> bool:
        """Faction membership (legends §1.1): the Deceased Emperor belongs to the four base factions, a
        Guardian hero to its base faction and the Guardians."""
        return is_of(self.id, faction)


LEADERS: dict[str, Leader] = {
    lead.id: lead
    for lead in (
        Leader("lemron", "Lemron – The Wise", 1, ("water-folk", "hill-tribes")),
        Leader("cyra", "Cyra – The Righteous", 2, ("imperial-army", "water-folk")),
        Leader("myrad", "Myrad – The Banished", 3, ("undead", "hill-tribes")),
        Leader("xiadul", "Xiadul – The Cunning", 4, ("imperial-army", "undead")),
        Leader("pavyr", "Pavyr – The Opportunist", 5, ("imperial-army", "hill-tribes")),
        Leader("enned", "Enned – The Innocent", 6, ("undead", "water-folk")),
        # legends: the Guardian leaders (legends §2.1)
        Leader("tissa", "Tissa – The Inventive", 7, ("imperial-army", GUARDIANS)),
        Leader("ulc", "Ulc – The Rooted", 8, ("hill-tribes", GUARDIANS)),
        Leader("irafel", "Irafel – The Lyrical", 9, ("undead", GUARDIANS)),
        Leader("vyma", "Vyma – The Deep", 10, ("water-folk", GUARDIANS)),
    )
}
BASE_LEADERS: tuple[str, ...] = ("lemron", "cyra", "myrad", "xiadul", "pavyr", "enned")
GUARDIAN_LEADERS: tuple[str, ...] = ("tissa", "ulc", "irafel", "vyma")
#: legends §2.2: players -> (base leaders, Guardian leaders) in the secret leader pool
LEADER_POOL: dict[int, tuple[int, int]] = {2: (4, 2), 3: (3, 1), 4: (4, 2), 5: (5, 2), 6: (6, 3)}

_H, _I, _W, _U = FACTIONS

# (id, name, faction, module, printed markers, marker code, printed ability)
_ROWS: tuple[tuple[str, str, str | None, str, str, str, str], ...] = (
    # --- core: hill tribes
    ("shaky-sharpshooter", "Shaky Sharpshooter", _H, "core", "R+1 OR G−1", "R+1|G-1",
     "Bury any 1 face-up Imperial hero."),
    ("overworked-amazon", "Overworked Amazon", _H, "core", "R+1 OR G−1", "R+1|G-1",
     "Pick 1 player who has at least 1 face-up hero (you may pick yourself). That player chooses 1 of their "
     "own face-up heroes and buries it."),
    ("hangry-barbarian", "Hangry Barbarian", _H, "core", "R −X", "",
     "Discard every Imperial and Undead card in the Tavern. X = the number discarded."),
    ("joyless-chief", "Joyless Chief", _H, "core", "R+1", "R+1",
     "Look at the top 2 cards of the Wilderness. Put 1 of them face-down into your party; the other "
     "goes back "
     "into the Wilderness."),
    ("battle-pet-master", "Battle Pet Master", _H, "core", "R+1 AND G+1", "R+1 G+1",
     "Put 1 card from your hand face-down into your party."),
    ("curious-troll", "Curious Troll", _H, "core", "R+1 OR G+1", "R+1|G+1",
     "You may secretly look at up to 2 face-down heroes (any party)."),
    ("pigmented-war-pig", "Pigmented War Pig", _H, "core", "R−1 AND G+1", "R-1 G+1", "—"),
    ("bored-goblin", "Bored Goblin", _H, "core", "(conditional)", "",
     "R−2 if you have at least 1 face-up Undead in your party; otherwise nothing."),
    ("curious-cat-lover", "Curious Cat Lover", _H, "core", "R+1", "R+1",
     "Take 1 random card from another player's hand and put it face-down into your party."),
    ("watchful-witch", "Watchful Witch", _H, "core", "R−1 OR G+1", "R-1|G+1",
     "You may secretly look at up to 2 face-down heroes."),
    ("depressed-druid", "Depressed Druid", _H, "core", "R−3 AND G−1", "R-3 G-1", "—"),
    ("blind-eye-collector", "Blind Eye Collector", _H, "core", "R+1 AND G+3", "R+1 G+3", "—"),
    ("hairy-hermit", "Hairy Hermit", _H, "core",
        "R−1. If red is the leading marker, you may choose R−2 instead.",
     "", "—"),
    ("long-eared-loner", "Long-Eared Loner", _H, "core", "G+1", "G+1",
     "Choose another player and turn over 1 of their heroes: face-up becomes face-down, or face-down becomes "
     "face-up."),
    ("saber-toothed-troll", "Saber-Toothed Troll", _H, "core", "(chosen by victim)", "",
     "Take 1 face-up hero from another player's party into your hand. That player then chooses G+2 "
     "or G−2. If "
     "no other player has a face-up hero, the whole card does nothing."),
    ("potato-privateer", "Potato Privateer", _H, "core", "G +X", "",
     "Pick a player (you may pick yourself). X = the number of face-up Imperial heroes in that "
     "player's party, "
     "at most 3."),
    ("spirited-shaman", "Spirited Shaman", _H, "core", "R−1 AND G−1", "R-1 G-1",
     "Choose another player and turn over 1 of their heroes, face-up or face-down."),
    ("grumpy-guard", "Grumpy Guard", _H, "core", "(conditional)", "",
     "G+2 if you have at least 1 face-up Water Folk in your party."),
    # --- core: imperial army
    ("short-sighted-soldier", "Short-Sighted Soldier", _I, "core", "R+1 AND G−1", "R+1 G-1", "—"),
    ("doubtful-priest", "Doubtful Priest", _I, "core", "(chosen by next player)", "",
     "The next player in turn order chooses R+2 or R−2. Then you may play 1 more card from your hand face-up "
     "and resolve it normally, as long as it is not Imperial (or pass)."),
    ("underestimated-squire", "Underestimated Squire", _I, "core", "R−1 AND G−1", "R-1 G-1",
     "You may swap 1 of your face-down heroes with 1 card from your hand. The hand card enters your party "
     "face-down; the hero goes to your hand."),
    ("flailing-knight", "Flailing Knight", _I, "core", "R−1 AND G−3", "R-1 G-3", "—"),
    ("underpaid-mercenary", "Underpaid Mercenary", _I, "core", "R+3 AND G+1", "R+3 G+1", "—"),
    ("heart-bending-bard", "Heart-Bending Bard", _I, "core", "G −X", "",
     "Discard every Water Folk and Hill Tribes card in the Tavern. X = the number discarded."),
    ("modest-monsterslayer", "Modest Monsterslayer", _I, "core", "—", "",
     "Choose 1 card in the Tavern. Resolve its marker effect and ability as if you had played it. Then put "
     "that card face-down into your party."),
    ("ace-fighter", "Ace Fighter", _I, "core",
        "R+1. If green is the leading marker, you may choose R+2 instead.",
     "", "—"),
    ("battle-connoisseur", "Battle Connoisseur", _I, "core", "G+1", "G+1",
     "Take every card in the Tavern. Put 1 of them face-down into your party and discard the rest."),
    ("canned-champion", "Canned Champion", _I, "core", "R−1 OR G+1", "R-1|G+1",
     "Bury any 1 face-up Hill Tribes hero."),
    ("nagging-northman", "Nagging Northman", _I, "core", "(conditional)", "",
     "You may discard 1 Hill Tribes card from the Tavern. If you do, R+2."),
    ("almost-evil-scholar", "Almost-Evil Scholar", _I, "core", "R +X", "",
     "Pick a player (you may pick yourself). X = the number of face-up Hill Tribes in that player's "
     "party, at "
     "most 3."),
    ("well-aged-warrior", "Well-Aged Warrior", _I, "core", "R+1 AND G+1", "R+1 G+1",
     "Put 1 card from your hand face-down into your party."),
    ("androgynous-assassin", "Androgynous Assassin", _I, "core", "R−1 OR G+1", "R-1|G+1",
     "Name a faction, then turn 1 face-down hero of another player face-up. If it belongs to the "
     "named faction, "
     "bury it (the Emperor always matches). Otherwise it stays face-up in that party."),
    ("groggy-preacher", "Groggy Preacher", _I, "core", "R+1 OR G+1", "R+1|G+1",
     "Swap 1 Tavern card with 1 of your face-up heroes. The Tavern card enters your party face-up; your hero "
     "takes its Tavern slot."),
    ("queer-quartermaster", "Queer Quartermaster", _I, "core", "R+1", "R+1",
     "You may swap 1 of your face-up heroes that is not Imperial with 1 card from your hand. The hand card "
     "enters face-up; the hero goes to your hand."),
    ("angry-priestess", "Angry Priestess", _I, "core", "(conditional)", "",
     "You may discard 1 Undead card from the Tavern. If you do, G−2."),
    ("resilient-rearguard", "Resilient Rearguard", _I, "core", "R+1 OR G−1", "R+1|G-1",
     "Take 1 random card from another player's hand into your hand."),
    # --- core: undead
    ("arrowgant-skeleton", "Arrowgant Skeleton", _U, "core", "R+2 AND/OR G+2", "R+2/G+2", "—"),
    ("unconfident-executioner", "Unconfident Executioner", _U, "core", "R−1 AND G−1", "R-1 G-1",
     "Bury any 1 face-up hero. It can be your own, including this card."),
    ("ghastly-granny", "Ghastly Granny", _U, "core", "—", "",
     "Choose 1 of your other face-up heroes and resolve its marker effect and ability as if you had "
     "just played "
     "it. The chosen card does not move."),
    ("rotting-orangutan", "Rotting Orangutan", _U, "core", "R+2 OR G+2", "R+2|G+2", "—"),
    ("half-headed-wizard", "Half-Headed Wizard", _U, "core", "R+1 AND G+1", "R+1 G+1",
     "Swap 1 Tavern card with 1 face-up hero of another player. The Tavern card enters their party face-up; "
     "their hero takes the Tavern slot."),
    ("nightmarish-northman", "Nightmarish Northman", _U, "core", "R+2 AND/OR G+2", "R+2/G+2",
     "Bury 1 of your own face-up heroes (this card counts) AND 1 face-up hero of another player. Do "
     "as much as "
     "is possible."),
    ("half-eaten-bull", "Half-Eaten Bull", _U, "core", "R+2 AND G+1", "R+2 G+1",
     "Bury any 1 face-up Water Folk hero."),
    ("gorgeous-gorgon", "Gorgeous Gorgon", _U, "core", "R+1 OR G+1", "R+1|G+1",
     "Pick a player with at least 1 face-up hero (you may pick yourself). Bury 1 of their face-up "
     "heroes chosen "
     "at random."),
    ("crow-carrier", "Crow Carrier", _U, "core", "R−1 AND G−1", "R-1 G-1",
     "Take the top 2 cards of the Graveyard (fewer if it has fewer). Put 1 face-down into your party and "
     "discard the other to the Wilderness."),
    ("insidious-impaler", "Insidious Impaler", _U, "core", "—", "",
     "Choose 1 card in the Tavern, resolve it as if you played it, then bury that card."),
    ("lethargic-leech", "Lethargic Leech", _U, "core", "R−1 OR G−1", "R-1|G-1",
     "Put 1 card from your hand face-down into your party."),
    ("will-bending-witch", "Will-Bending Witch", _U, "core", "R+1 OR G+1", "R+1|G+1",
     "Every other player discards 1 card of their choice from their hand."),
    ("resurrected-ram", "Resurrected Ram", _U, "core", "R+1 OR G+1", "R+1|G+1",
     "Discard all Tavern cards. Then refill the Tavern slots from the top of the Graveyard, one at "
     "a time, as "
     "far as the Graveyard allows."),
    ("mummy-mystic", "Mummy Mystic", _U, "core", "R+1 AND G+2", "R+1 G+2",
     "You may swap the top card of the Graveyard with 1 of your face-up heroes. Your hero is buried "
     "on top; the "
     "Graveyard card enters your party face-up."),
    ("naughty-necromancer", "Naughty Necromancer", _U, "core", "R +X AND G +X", "",
     "X = the number of cards in the Graveyard, at most 3."),
    ("sun-shy-skeleton", "Sun-Shy Skeleton", _U, "core", "—", "",
     "Resolve the top card of the Graveyard as if you played it. The card stays in the Graveyard. "
     "If that card "
     "is the Emperor, nothing happens."),
    ("wrapped-warrior", "Wrapped Warrior", _U, "core", "R+1 OR G+1", "R+1|G+1",
     "Search the Graveyard and take any 1 card from it into your hand."),
    ("slaughtered-slime", "Slaughtered Slime", _U, "core", "R−1 OR G−1", "R-1|G-1",
     "Bury any 1 face-down hero. It can be your own."),
    # --- core: water folk
    ("pessimistic-whaleman", "Pessimistic Whaleman", _W, "core", "R+1 OR G+1", "R+1|G+1",
     "Draw 2 cards from the Harbor. Put 1 face-down into your party and discard the other."),
    ("tentacle-oracle", "Tentacle Oracle", _W, "core", "(conditional)", "",
     "Reveal the top card of the Wilderness. If it is not Undead: R−3 AND G−3. If the Wilderness is empty, "
     "nothing happens."),
    ("drowned-deserter", "Drowned Deserter", _W, "core", "(conditional)", "",
     "If there is a leading marker: either the leading marker −1 OR the trailing marker +2."),
    ("deep-sea-squire", "Deep Sea Squire", _W, "core", "R+1 OR G+1", "R+1|G+1",
     "Draw 2 cards from the Harbor. Put 1 face-down into your party and keep the other in your hand."),
    ("vegetarian-sharkguard", "Vegetarian Sharkguard", _W, "core", "R+2 AND/OR G+2", "R+2/G+2",
     "Discard 1 face-up hero of another player to the Wilderness. This is a discard, not a bury."),
    ("double-shielded-turtle", "Double-Shielded Turtle", _W, "core", "R −X AND/OR G −X", "",
     "Name a faction and discard every Tavern card of that faction. X = the number discarded."),
    ("leery-lizard", "Leery Lizard", _W, "core", "R−1 OR G−2", "R-1|G-2", "—"),
    ("furious-frog", "Furious Frog", _W, "core", "R−2 AND/OR G−2", "R-2/G-2", "—"),
    ("apathetic-waterpriest", "Apathetic Waterpriest", _W, "core", "R−2 OR G−1", "R-2|G-1", "—"),
    ("hopeful-salamander", "Hopeful Salamander", _W, "core", "R+1 AND G+1", "R+1 G+1",
     "Take 1 Tavern card and put it face-up into your party. It does not resolve at all (no marker "
     "effect, no "
     "ability)."),
    ("keen-koi", "Keen Koi", _W, "core", "(conditional)", "",
     "If there is a leading marker: the leading marker −1 AND the trailing marker +1."),
    ("triple-sword-lizard", "Triple Sword Lizard", _W, "core", "(conditional)", "",
     "If there is a leading marker: the leading marker −1 OR −3."),
    ("saltwater-sage", "Saltwater Sage", _W, "core", "—", "",
     "Turn 1 of your face-down heroes face-up and resolve it as if you had played it."),
    ("miniature-merman", "Miniature Merman", _W, "core", "R−1 OR G+1", "R-1|G+1",
     "Draw 2 cards into your hand, either both from the Wilderness or both from the Graveyard. You "
     "choose the "
     "pile."),
    ("krill-keeper", "Krill Keeper", _W, "core", "R −X AND G −X", "",
     "Pick a player (you may pick yourself). X = the number of face-up Undead in their party, at most 3."),
    ("aimless-eel", "Aimless Eel", _W, "core", "R+1 OR G+1", "R+1|G+1", "Bury any 1 face-up Undead hero."),
    ("bludgeoning-blowfish", "Bludgeoning Blowfish", _W, "core", "R+1 OR G−1", "R+1|G-1",
     "Either turn 1 face-down hero of another player face-up, OR secretly look at any 1 face-down hero."),
    ("friendly-frogmage", "Friendly Frogmage", _W, "core", "R+1 AND G+1", "R+1 G+1",
     "Put 1 card from your hand face-down into your party."),
    # --- kickstarter
    ("gambling-overseer", "Gambling Overseer", _H, "kickstarter", "R−1 AND G−1", "R-1 G-1",
     "Bury 1 of your own face-down heroes, then put 2 cards from your hand face-down into your "
     "party (the bury "
     "is skipped when you have no face-down hero)."),
    ("goblin-cryptographer", "Goblin Cryptographer", _I, "kickstarter", "R−1 AND/OR G−1", "R-1/G-1",
     "You may take any 1 face-up hero and put it face-up into the party of a player who is neither "
     "you nor its "
     "current owner. With 2 players: move one of your own face-up heroes to your opponent."),
    ("careless-cartographer", "Careless Cartographer", _U, "kickstarter", "R+1 AND/OR G+1", "R+1/G+1",
     "Swap 1 face-down hero of another player with 1 of your face-down heroes. Both stay face-down."),
    ("underwater-artist", "Underwater Artist", _W, "kickstarter", "R+1 AND G+1", "R+1 G+1",
     "Name a faction and choose another player. If they have a card of that faction in hand (the Emperor "
     "counts), they must reveal 1 such card and give it to you. If not, nothing happens."),
    ("polar-protector", "Polar Protector", _H, "kickstarter", "R −X OR G +X", "",
     "X = the number of face-down heroes in your party, at most 3."),
    ("firm-fishmonger", "Firm Fishmonger", _H, "kickstarter", "R−1 AND/OR G+1", "R-1/G+1",
     "Look at the top 3 cards of the Wilderness. Swap 1 of them with 1 of your face-down heroes; "
     "your hero goes "
     "to the Wilderness and the other cards return there."),
    ("sanguine-scholar", "Sanguine Scholar", _I, "kickstarter", "—", "",
     "Choose 1 face-up hero in the next player's party and resolve it as if you had played it. The card does "
     "not move."),
    ("well-shaved-wizard", "Well-Shaved Wizard", _I, "kickstarter", "R +X OR G −X", "",
     "X = the number of different non-Imperial factions among your face-up heroes. A face-up Emperor makes "
     "X = 3."),
    ("half-sliced-ghoul", "Half-Sliced Ghoul", _U, "kickstarter", "(conditional)", "",
     "Turn 1 face-down hero of another player face-up. If it is Imperial or Hill Tribes (or the "
     "Emperor): R+2 "
     "AND/OR G+2."),
    ("kind-king-slayer", "Kind King Slayer", _U, "kickstarter", "(conditional)", "",
     "If there is a leading marker, it moves −2. Then bury any 1 hero, face-up or face-down, in any party."),
    ("careful-chameleon", "Careful Chameleon", _W, "kickstarter", "R+1 OR G+1", "R+1|G+1",
     "Swap 1 card from your hand with 1 face-up hero of another player. Your card enters their "
     "party face-up; "
     "their hero goes to your hand."),
    ("seaweed-chopper", "Seaweed Chopper", _W, "kickstarter", "R−1 OR G−1", "R-1|G-1",
     "Draw 2 cards from the Wilderness. Put 1 face-down into your party and keep the other in your hand."),
    # --- queens
    ("keeper-of-discord", "Keeper of Discord", None, "queens", "R−1 AND/OR G−1", "R-1/G-1",
     "Passive, while face-up in your party: if any other face-up hero in your party would be buried, turn it "
     "face-down instead. Being turned face-down by this does not count as a bury."),
    ("emperors-best-friend", "Emperor's Best Friend", _U, "queens", "R−2 OR G−2", "R-2|G-2",
     "At game end, if it is in the same party as the Emperor (face-up or face-down), it counts as 2 "
     "heroes of "
     "the winning faction."),
    ("queen-of-the-wild", "Queen of the Wild", _I, "queens", "R−2 OR G+2", "R-2|G+2",
     "At game end, in Myrad's or Lemron's party: counts as 2 heroes of the winning faction."),
    ("well-funded-queen", "Well-Funded Queen", _H, "queens", "R+2 OR G−2", "R+2|G-2",
     "At game end, in Enned's or Cyra's party: counts as 2 heroes of the winning faction."),
    ("queen-of-the-streets", "Queen of the Streets", _W, "queens", "R+2 OR G+2", "R+2|G+2",
     "At game end, in Pavyr's or Xiadul's party: counts as 2 heroes of the winning faction."),
    # --- legends (Forgotten Legends, Guardians module): Guardian heroes, faction = their base faction
    ("obliging-ogre", "Obliging Ogre", _H, "legends", "R−4 OR G+4", "R-4|G+4",
     "Turn 2 of your own face-up heroes face down. This card may be one of them. If you have only 1 face-up "
     "hero, turn that one."),
    ("sleepy-hop-goblin", "Sleepy Hop-Goblin", _H, "legends", "R−2 OR G+1", "R-2|G+1",
     "Take 1 face-down hero from another player's party and put it face down into your party."),
    ("gigantic-duo", "Gigantic Duo", _H, "legends", "G−1", "G-1",
     "You may bury any 1 face-up Imperial hero, AND/OR you may bury any 1 face-up Water Folk hero (any "
     "party, yours included)."),
    ("surprised-sapling", "Surprised Sapling", _H, "legends", "R+1", "R+1",
     "Choose another player with at least 1 card in hand and secretly look at their whole hand. Take 1 of "
     "those cards and put it face down into your party."),
    ("fungified-troll", "Fungified Troll", _H, "legends", "R−1 AND/OR G−1", "R-1/G-1",
     "Swap 1 of your face-up heroes with 1 face-up Undead or Imperial hero of another player. Both stay "
     "face up, each in the other's place, and neither resolves."),
    ("twiggy-tree-keeper", "Twiggy Tree Keeper", _H, "legends", "R+2 OR G+2", "R+2|G+2",
     "Secretly look at 2 face-down heroes of other players. Then bury any 1 face-down hero (any party, "
     "yours included)."),
    ("patient-protector", "Patient Protector", _I, "legends", "R+1 OR G−2", "R+1|G-2",
     "Swap 2 Tavern cards with 2 of your face-up heroes, one pair at a time. Each Tavern card enters your "
     "party face up without resolving, and your hero takes that card's Tavern slot."),
    ("misinformed-mechatron", "Misinformed Mechatron", _I, "legends", "G+1", "G+1",
     "Put up to 2 cards from your hand face down into your party."),
    ("mended-colossus", "Mended Colossus", _I, "legends", "R−1", "R-1",
     "Bury 1 face-up hero of the next player, then 1 face-up hero of the previous player."),
    ("huggable-hulk", "Huggable Hulk", _I, "legends", "R+4 OR G−4", "R+4|G-4",
     "Bury 1 of your own face-up heroes that is not a Guardian card."),
    ("valuable-vindicator", "Valuable Vindicator", _I, "legends", "R+1 AND/OR G+1", "R+1/G+1",
     "Swap 1 of your face-up heroes with 1 face-up Water Folk or Hill Tribes hero of another player. Both "
     "stay face up, each in the other's place, and neither resolves."),
    ("graceful-griffin", "Graceful Griffin", _I, "legends", "R−2 OR G−2", "R-2|G-2",
     "You may swap up to 2 of your face-down heroes with cards from your hand, one pair at a time. The hand "
     "card takes the hero's place face down, and the hero goes to your hand."),
    ("severed-seraph", "Severed Seraph", _U, "legends", "R+1 OR G+1", "R+1|G+1",
     "Swap 1 of your face-up Guardian cards with 1 face-up Guardian card of another player. Both stay face "
     "up, each in the other's place, and neither resolves."),
    ("baneful-beacon", "Baneful Beacon", _U, "legends", "R−1 OR G−1", "R-1|G-1",
     "You may bury up to 2 face-up Guardian cards (any party, yours included, this card included)."),
    ("demonic-darter", "Demonic Darter", _U, "legends", "R+2 OR G+2", "R+2|G+2",
     "You may take up to 3 Guardian cards from anywhere in the Graveyard into your hand."),
    ("possessed-poodle", "Possessed Poodle", _U, "legends", "R−1 AND G−1", "R-1 G-1",
     "Choose another player. That player skips their next turn."),
    ("philantropic-phantom", "Philantropic Phantom", _U, "legends", "R+1 AND G+1", "R+1 G+1",
     "Every other player who has at least 1 hero in their party chooses 1 of their own heroes, face up or "
     "face down, and buries it."),
    ("obnoxious-nightmare", "Obnoxious Nightmare", _U, "legends", "R+1 AND G+1", "R+1 G+1",
     "Choose any 1 card in the Graveyard and put it face down into your party."),
    ("oppressed-ocean", "Oppressed Ocean", _W, "legends", "R −X AND/OR G −X", "",
     "Pick a player (you may pick yourself). X = the number of face-up Guardian cards in that player's "
     "party, at most 4."),
    ("hard-shelled-titan", "Hard-Shelled Titan", _W, "legends", "R+1 OR G+1", "R+1|G+1",
     "Every other player with at least 1 card in hand gives you 1 hand card of their choice. Put 1 of the "
     "given cards face down into your party and discard the others."),
    ("abysmal-automaton", "Abysmal Automaton", _W, "legends", "R−1 AND/OR G−1", "R-1/G-1",
     "Look at the top 5 cards of the Harbor. Take up to 3 of them into your hand and discard the rest."),
    ("crabby-knight", "Crabby Knight", _W, "legends", "R+1 AND G+1", "R+1 G+1",
     "For every other player who has at least 1 hero in their party, you turn 1 of their heroes over (face "
     "up or face down)."),
    ("snappy-sea-snake", "Snappy Sea Snake", _W, "legends", "R±1 or R±2 OR G±1 or G±2",
     "R+1|R+2|R-1|R-2|G+1|G+2|G-1|G-2", "—"),
    ("shellfish-defender", "Shellfish Defender", _W, "legends", "R+1 OR G+1", "R+1|G+1",
     "Look at the top 4 cards of the Wilderness. Put 1 of them face down into your party AND take 1 of them "
     "into your hand. The rest go back on top of the Wilderness in their order."),
    ("mother-of-guardians", "Mother of Guardians", GUARDIANS, "legends", "R−2 AND/OR G−2", "R-2/G-2",
     "At game end, if it is in a party, it adds 1 hero of the winning faction for every 2 Guardian cards in "
     "that party (face up and face down, this card included)."),
)

CARDS: dict[str, Card] = {
    EMPEROR: Card(EMPEROR, "Deceased Emperor", None, "core", "—",
                  "Counts as a member of all four factions. No marker effect, no ability.", ""),
}
for _id, _name, _fac, _mod, _mk, _code, _ab in _ROWS:
    CARDS[_id] = Card(_id, _name, _fac, _mod, _mk, _ab, _code)

#: Heroes of each module that are shuffled into the Harbor (the Emperor is not among them).
MODULE_CARDS: dict[str, tuple[str, ...]] = {
    m: tuple(c.id for c in CARDS.values() if c.module == m and c.id != EMPEROR) for m in MODULES
}
#: legends §1: the cards of the module that are removed with 2 players
NOT_2P: frozenset[str] = frozenset(
    {"gigantic-duo", "mended-colossus", "possessed-poodle", "hard-shelled-titan"})
#: legends §1.1: the Guardian cards
GUARDIAN_CARDS: frozenset[str] = frozenset(MODULE_CARDS["legends"])
_BASE = frozenset(FACTIONS)


def deck_cards(modules: tuple[str, ...] | list[str], players: int) -> list[str]:
    """The heroes shuffled into the Harbor at setup (legends §1: 4 cards fewer with 2 players)."""
    return [c for m in MODULES if m in modules for c in MODULE_CARDS[m] if players > 2 or c not in NOT_2P]


def is_of(card: str, faction: str) -> bool:
    """Faction membership by id (legends §1.1): the Deceased Emperor belongs to the four base factions
    (never to the Guardians), a Guardian hero to its base faction and to the Guardians."""
    if card == EMPEROR:
        return faction in _BASE
    f = CARDS[card].faction
    return f == faction or (faction == GUARDIANS and card in GUARDIAN_CARDS)


def factions_of(modules: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The factions that can be named in a game of these modules (legends R1)."""
    return (*FACTIONS, GUARDIANS) if "legends" in modules else FACTIONS


def parse_marker_code(code: str) -> tuple[list[list[tuple[str, int]]], bool]:
    """The options of a marker code and whether choosing among them is a decision.

    ``"R+1 G+1"`` -> one option of two moves (no choice); ``"R+1|G-1"`` -> two options; ``"R+2/G+2"`` ->
    ``R+2``, ``G+2`` and both.
    """
    if not code:
        return [], False

    def moves(text: str) -> list[tuple[str, int]]:
        return [(m[0], int(m[1:])) for m in text.split()]

    if "/" in code:
        a, b = (moves(p)[0] for p in code.split("/"))
        return [[a], [b], [a, b]], True
    if "|" in code:
        return [moves(p) for p in code.split("|")], True
    return [moves(code)], False


MARKER_OPTIONS: dict[str, tuple[list[list[tuple[str, int]]], bool]] = {
    cid: parse_marker_code(c.marker_code) for cid, c in CARDS.items()
}
