"""An assistant called by its own name, in a texted chat with few turns of its own
(docs/spec.md §5.2.11, chat.answering_speaker): a user texting in bursts and an assistant
answering each burst at length, in one turn of four speaking of itself ("Lost things are my speciality"),
or promising to note something for the user ("I'll note two trains") — and two friends
texting, who stay people. Each chat is written here, with other people and other words
than any eval split.
"""

from __future__ import annotations

from click.testing import CliRunner

from reme_workbench.brains.offline_dream.chat import chat_kind
from reme_workbench.brains.offline_dream.statements import segment
from reme_workbench.cli import cli


def roles(text: str) -> dict[str, str]:
    blocks, _ = segment(text)
    return {b.speaker: b.role for b in blocks if b.speaker}


BURSTS = (
    "kit: heyy\n"
    "kit: ok so i lost my bike lock key again\n"
    "Fern: Lost things are my speciality. Where did you last have it, and is the bike locked "
    "up somewhere now?\n"
    "kit: outside the library lol\n"
    "kit: im a barista at the station so i need it by 6am\n"
    "Fern: Most cable and D-locks can be opened by the shop that sold them if you bring the "
    "receipt or the key number. A bike shop can also cut the lock for a small fee.\n"
    "kit: ok ill ring them\n"
    "kit: also i started climbing on thursdays 🧗\n"
    "Fern: That's a good habit. Take chalk and a snack for the first few sessions, they are "
    "longer than they look.\n"
    "kit: ty fern\n"
    "Fern: Any time. If the shop can't open the lock before your shift, lock the bike with a "
    "second lock so nobody takes it while you sort the first one out.\n"
)

NAMED = (
    "**Noor:** My brother's wedding went well, thanks for the speech ideas!\n\n"
    "**Bramble:** Glad to hear it. The toast about the camping trip sounded like a good one "
    "to end on.\n\n"
    "**Noor:** Now I need a train to Edinburgh on the 3rd of May. I teach Year 4 in Leeds so "
    "it has to be after half three.\n\n"
    "**Bramble:** The 16:45 from Leeds gets in just before eight, with a change at York; the "
    "17:15 is direct but fills up on Fridays. Do you want a seat reserved on either?\n\n"
    "**Noor:** The direct one. I play the fiddle in a ceilidh band and I'll have it with me.\n\n"
    "**Bramble:** Then book a table seat with a luggage rack near it. I'll note two trains "
    "for the way back as well.\n"
)


def test_an_assistant_answering_a_burst_at_length_is_the_assistant():
    assert roles(BURSTS) == {"kit": "user", "Fern": "assistant"}
    assert chat_kind(segment(BURSTS)[0]) == "assistant"


def test_an_assistant_by_its_name_in_bold_labels_is_the_assistant():
    assert roles(NAMED) == {"Noor": "user", "Bramble": "assistant"}


def test_two_friends_texting_stay_people():
    """A friend answering at the same length, with a question back and advice, speaking of
    themselves in few of their turns, is a person."""
    chat = ("dot: guess who got the allotment 🥕\n"
            "Mags: no way!! the one by the canal?\n"
            "dot: yep plot 14\n"
            "Mags: get raised beds, the soil there is all clay\n"
            "dot: good shout\n"
            "Mags: and beg the old fella next door for rhubarb\n"
            "dot: im going up on saturday to clear it\n"
            "Mags: I can bring gloves and the big fork\n")
    assert roles(chat) == {"dot": "person", "Mags": "person"}
    assert chat_kind(segment(chat)[0]) == "people"


def test_dreaming_a_named_assistants_chat_keeps_the_users_facts_in_the_personal_bucket(make_vault):
    vault = make_vault({"daily/2028-05-01/train.md": NAMED, "daily/2028-05-02/lock.md": BURSTS})
    result = CliRunner().invoke(cli, ["--vault", str(vault), "dream", "--embedder", "hashing",
                                      "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    personal = [p.read_text(encoding="utf-8") for p in (vault / "digest" / "personal").rglob("*.md")]
    wiki = [p.read_text(encoding="utf-8") for p in (vault / "digest" / "wiki").rglob("*.md")]
    assert any("fiddle" in n for n in personal), personal
    assert any("barista" in n for n in personal), personal
    assert not any("fiddle" in n or "barista" in n for n in wiki), wiki
    everything = personal + wiki
    assert not any("luggage rack" in n or "receipt or the key number" in n for n in everything)


def test_a_telegram_desktop_copy_with_an_assistant_by_its_name():
    """Telegram's `Name, [dd.mm.yy hh:mm]` over each message: a user's burst answered by an
    assistant called by its own name (read before this change too: a check, not a fix)."""
    chat = ("Bea, [02.02.28 08:10]\nmorning!!\n\n"
            "Bea, [02.02.28 08:10]\nmy allotment shed got broken into again\n\n"
            "Moss, [02.02.28 08:11]\nSorry, that's rotten. Was anything taken, and is the lock "
            "still on the door?\n\n"
            "Bea, [02.02.28 08:12]\njust the strimmer. im a school nurse so i cant get up there "
            "till saturday\n\n"
            "Moss, [02.02.28 08:13]\nReport it to the allotment secretary and the police for a "
            "crime number; a shed alarm and a hasp with a closed shackle padlock put most "
            "people off.\n\n"
            "Bea, [02.02.28 08:13]\nok ty\n\n"
            "Moss, [02.02.28 08:14]\nMark the new strimmer with a postcode pen too.\n")
    assert roles(chat) == {"Bea": "user", "Moss": "assistant"}
