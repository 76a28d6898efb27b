"""Writes src/throne/server/data/common-passwords.txt: passwords of at least 8 characters that people
choose most often (the top of the well-known leaked-password rankings), with the usual suffixes and letter
substitutions. Deterministic; run it again after changing the lists: python scripts/common-passwords.py
"""

from __future__ import annotations

import itertools
import string
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "throne" / "server" / "data" / "common-passwords.txt"
MIN_LENGTH = 8  # shorter passwords are refused by the length rule already

# Whole passwords from the top of the public rankings (RockYou, SplashData/NordPass yearly lists, NCSC
# top 100k).
WHOLE = """
123456 password 12345678 qwerty 123456789 12345 1234 111111 1234567 dragon 123123 baseball abc123 football
monkey letmein 696969 shadow master 666666 qwertyuiop 123321 mustang 1234567890 michael 654321 superman
1qaz2wsx 7777777 121212 000000 qazwsx 123qwe killer trustno1 jordan jennifer zxcvbnm asdfgh hunter buster
soccer harley batman andrew tigger sunshine iloveyou 2000 charlie robert thomas hockey ranger daniel starwars
klaster 112233 george computer michelle jessica pepper 1111 zxcvbn 555555 11111111 131313 freedom 777777 pass
maggie 159753 aaaaaa ginger princess joshua cheese amanda summer love ashley nicole chelsea biteme matthew
access yankees 987654321 dallas austin thunder taylor matrix welcome passw0rd p@ssw0rd p@ssword pa55word
admin administrator root toor changeme default guest login secret test testing whatever qwerty123 password1
password123 iloveyou1 1q2w3e4r 1q2w3e4r5t 1q2w3e4r5t6y q1w2e3r4 q1w2e3r4t5 zaq12wsx !qaz2wsx asdfghjkl
qwertyui 1qazxsw2 zaq1zaq1 zaq1xsw2 qazwsxedc 1qaz2wsx3edc qweasdzxc qweasd asdasd asd123 qwe123 123abc
abcd1234 abcdefg abcdefgh 147258369 147258 159357 258456 741852963 963852741 789456123 123654 123789
456789 987654 852456 11223344 12341234 12121212 123123123 112233445566 1122334455 aa123456 a123456
a12345678 a1b2c3d4 a1b2c3 qwerty1 qwerty12 asdf1234 zxcv1234 1234qwer qwer1234 1234abcd 12qwaszx
q2w3e4r5 iloveu 5201314 woaini 888888 88888888 520520 1314520 999999 99999999 666666666 789789 00000000
passpass letmein1 trustno1 monkey1 dragon1 master1 shadow1 sunshine1 princess1 football1 baseball1 welcome1
superman1 batman1 michael1 jordan23 michael23 lakers24 kobe24 chelsea1 arsenal1 liverpool1 iloveyou2
loveyou lovely lovelove loveme mylove ilovegod godisgood jesus1 jesuschrist blessed blessing angel1 angels
""".split()  # noqa: SIM905 - a word list reads best as text

# Words people build their passwords on: names, pets, teams, places, things they like, keyboard words.
WORDS = """
password passwort motdepasse contrasena senha parola wachtwoord haslo salasana adgangskode qwerty qwertz
azerty asdf zxcv admin welcome letmein iloveyou sunshine princess dragon monkey shadow master football
baseball soccer hockey basketball tennis golfer killer hunter freedom whatever secret trustme trustno
michael jennifer jessica ashley amanda nicole daniel matthew andrew joshua robert thomas charlie george
william richard joseph james david christopher anthony jordan taylor hannah sarah samantha elizabeth
emily olivia sophie chloe jasmine natalie victoria melissa michelle stephanie rebecca rachel lauren
alexander alexandra benjamin nicholas jonathan christian patrick brandon justin kevin steven brian
tigger buster maggie ginger pepper bailey max molly buddy rocky lucky coco teddy snoopy scooby oreo
chelsea arsenal liverpool manchester united barcelona realmadrid juventus madrid milan bayern dortmund
yankees lakers cowboys steelers packers eagles raiders patriots redsox celtics bulls warriors
london paris berlin moscow tokyo dallas austin boston chicago texas florida california canada america
mexico brazil germany france england scotland ireland india pakistan nigeria russia ukraine poland
computer internet samsung google apple iphone android windows microsoft facebook instagram youtube
twitter linkedin yahoo hotmail gmail outlook netflix amazon spotify nintendo playstation xbox
minecraft fortnite roblox pokemon pikachu naruto sasuke goku dragonball onepiece zelda mario sonic
starwars startrek superman batman spiderman ironman hulk thor avengers marvel joker harrypotter
hogwarts gandalf frodo matrix mickey minnie disney tinkerbell barbie hellokitty spongebob
flower flowers butterfly rainbow unicorn purple orange banana cherry chocolate cookie cookies cupcake
pumpkin peanut sugar honey sweetie sweetheart babygirl baby babe darling angel heaven diamond crystal
summer winter spring autumn sunday monday friday january october december
music guitar piano rockstar metallica nirvana beatles eminem rockyou
family friends forever together love lover lovers loving jesus christ god blessed faith
soccer1 player gamer gaming hacker hello hello123 helloworld test123 testtest demo sample
qazwsx zaqwsx asdfgh zxcvbn poiuytrewq lkjhgfdsa mnbvcxz 1qaz 2wsx 3edc
throne leaders hiddenleaders kingdom king queen prince knight castle empire
master123 admin123 root123 user user123 guest123 login123 pass123 pass1234
""".split()  # noqa: SIM905 - a word list reads best as text

SUFFIXES = ["", "1", "12", "123", "1234", "!", "1!", "01", "69", "2024", "2025", "2026"]
LEET_SUFFIXES = ["", "1", "123", "!"]
LEET = str.maketrans({"a": "@", "o": "0", "e": "3", "i": "1", "s": "$"})


def variants(word: str) -> set[str]:
    out = {word + suffix for suffix in SUFFIXES}
    for leet in {word.translate(LEET), word.replace("a", "4").replace("o", "0")} - {word}:
        out |= {leet + suffix for suffix in LEET_SUFFIXES}
    return out


def patterns() -> set[str]:
    out = set()
    for ch in string.ascii_lowercase + string.digits + "!.*":
        for n in range(MIN_LENGTH, 17):
            out.add(ch * n)
    digits = "12345678901234567890"
    for start in range(10):
        for n in range(MIN_LENGTH, 13):
            out.add(digits[start : start + n])
            out.add(digits[start : start + n][::-1])
    for row in ("qwertyuiop", "asdfghjkl", "zxcvbnm", "1qaz2wsx3edc4rfv5tgb", "qazwsxedcrfvtgb"):
        for n in range(MIN_LENGTH, len(row) + 1):
            out.add(row[:n])
            out.add(row[:n][::-1])
    for a, b in itertools.product("abc123xyz", repeat=2):
        if a != b:
            out.add((a + b) * 4)
    return out


def main() -> None:
    words: set[str] = set(WHOLE)
    for word in WORDS + WHOLE:
        if word.isalpha() or len(word) <= 8:
            words |= variants(word)
    words |= patterns()
    kept = sorted(w for w in words if len(w) >= MIN_LENGTH and w.isascii() and w.isprintable())
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        "# Common passwords of at least 8 characters, lower case (generated by scripts/common-passwords.py)\n"
        + "\n".join(kept)
        + "\n",
        encoding="utf-8",
    )
    print(f"{len(kept)} passwords -> {OUT}")


if __name__ == "__main__":
    main()
