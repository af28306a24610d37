"""Chat forms people log that the reader did not take apart (docs/spec.md §5.2.11,
brains/offline_dream/chat_exports.py): an iMessage export (a date-time line, the sender on a
line of their own — `Me` for the user — then the text) and a Messenger or web chat page
pasted (the sender's name on a line of its own over one or more lines of text). Each chat is
written here, with other people and other words than any eval split.
"""

from __future__ import annotations

from reme_workbench.brains.offline_dream.chat import chat_kind
from reme_workbench.brains.offline_dream.statements import segment
from tests.brains.test_chat_exports import dream_notes, turns

# -- iMessage ---------------------------------------------------------------------------------------

IMESSAGE = (
    "Mar 03, 2028  8:02:40 AM\nMe\nMorning. How long do I rest bread dough in a cold kitchen?\n\n"
    "Mar 03, 2028  8:02:58 AM\nPip\nIn a cold kitchen the first rise can take three hours or "
    "more. Put the bowl in the oven with just the light on. Is it a sourdough or a yeasted loaf?\n\n"
    "Mar 03, 2028  8:04:10 AM (Read by them after 1 minute)\nMe\nYeasted. I'm a bus driver, "
    "early shifts all week, so I bake before I leave\n\n"
    "Mar 03, 2028  8:04:30 AM\nMe\nMy terrier Biscuit sits by the oven the whole time\n\n"
    "Mar 03, 2028  8:05:02 AM\nPip\nThen shape it the night before and let it rise slowly in "
    "the fridge; bake it straight from cold in the morning.\n"
)


def test_an_imessage_export_is_read_as_turns_with_me_the_user():
    assert turns(IMESSAGE, plain_text=True) == [
        ("Me", "user", "Morning. How long do I rest bread dough in a cold kitchen?"),
        ("Pip", "assistant", "In a cold kitchen the first rise can take three hours or more. "
                             "Put the bowl in the oven with just the light on. Is it a sourdough "
                             "or a yeasted loaf?"),
        ("Me", "user", "Yeasted. I'm a bus driver, early shifts all week, so I bake before I leave"),
        ("Me", "user", "My terrier Biscuit sits by the oven the whole time"),
        ("Pip", "assistant", "Then shape it the night before and let it rise slowly in the "
                             "fridge; bake it straight from cold in the morning."),
    ]
    assert chat_kind(segment(IMESSAGE)[0]) == "assistant"


def test_an_imessage_export_between_two_friends_stays_between_people():
    chat = ("Jun 14, 2028  6:40:02 PM\nMe\nI started my new job at the garden centre today\n\n"
            "Jun 14, 2028  6:41:19 PM\nHarriet\nno way!! how was it\n\n"
            "Jun 14, 2028  6:42:07 PM\nMe\nknackered, I was on the tills all day\n\n"
            "Jun 14, 2028  6:43:30 PM\nHarriet\nmy feet hurt just thinking about it, I did "
            "two summers at the bakery and my back never forgave me\n")
    blocks, _ = segment(chat)
    assert [(b.speaker, b.role) for b in blocks] == [
        ("Me", "user"), ("Harriet", "person"), ("Me", "user"), ("Harriet", "person")]
    assert chat_kind(blocks) == "people"


def test_dreaming_an_imessage_export_keeps_the_users_facts_not_the_assistants(make_vault):
    notes = dream_notes(make_vault, {"daily/2028-03-03/dough.md": IMESSAGE})
    assert any("bus driver" in n for n in notes), notes
    assert not any("fridge" in n for n in notes), notes  # the assistant's advice is no fact
    assert not any("Mar 03, 2028" in n or "8:04:10" in n for n in notes), notes


# -- a Messenger or web chat page pasted ------------------------------------------------------------

MESSENGER = (
    "Tomasz Brennan\nhey quick q\nmy hamster nibbles wont use his wheel\n"
    "Juniper\nHow big is the wheel? Syrians need one at least 28 cm across, or they arch "
    "their backs and give up on it.\n"
    "Tomasz Brennan\nits the one that came with the cage\nprob tiny tbh\n"
    "Juniper\nThat will be it. A 28–30 cm solid wheel, no rungs, usually fixes it within a "
    "night or two.\n"
    "Tomasz Brennan\nok ordering one. im a postman so ill be home by 2 to set it up\n"
)


def test_a_messenger_page_pasted_is_read_as_turns():
    assert [(s, r) for s, r, _ in turns(MESSENGER)] == [
        ("Tomasz Brennan", "user"), ("Juniper", "assistant"), ("Tomasz Brennan", "user"),
        ("Juniper", "assistant"), ("Tomasz Brennan", "user")]
    assert turns(MESSENGER)[0][2] == "hey quick q my hamster nibbles wont use his wheel"


def test_a_messenger_page_between_two_people_stays_between_people():
    chat = ("Orla Quinn\ndid u get the tickets\nRuairi Byrne\nyeah two for friday\n"
            "Orla Quinn\nlegend, I'll bring the snacks\nRuairi Byrne\nI'm driving so no "
            "pints for me\n")
    blocks, _ = segment(chat)
    assert [(b.speaker, b.role) for b in blocks] == [
        ("Orla Quinn", "person"), ("Ruairi Byrne", "person"),
        ("Orla Quinn", "person"), ("Ruairi Byrne", "person")]


def test_short_recurring_lines_of_a_document_are_no_senders():
    """A short line that recurs is a sender only when the lines alternate as headers, each
    over its own text: a list of places with one repeated under-line is no chat."""
    doc = ("Packing\ntent, stove, two mats\nFood\npasta, oats\nPacking\nhead torch\n"
           "Food\ncoffee\n")
    assert {s for s, _, _ in turns(doc)} == {""}
    text = "Ok\nsee you at six\nOk\nbring the map\n"  # one line that recurs: no two senders
    assert {s for s, _, _ in turns(text)} == {""}


def test_dreaming_a_messenger_page_keeps_the_users_fact_and_no_raw_lines(make_vault):
    notes = dream_notes(make_vault, {"daily/2028-04-09/hamster.md": MESSENGER})
    assert any("postman" in n for n in notes), notes
    assert not any("Tomasz Brennan\n" in n or "Juniper How big" in n for n in notes), notes
    assert not any("28–30 cm" in n for n in notes), notes


# -- other tools' iMessage and SMS exports ------------------------------------------------------


def test_imessage_senders_by_number_or_address_and_a_two_digit_hour():
    """imessage-exporter names a sender not in the address book by their number or email."""
    chat = ("Apr 09, 2028 10:14:08 PM\n+447700900461\nare we still on for the quiz tmrw\n\n"
            "Apr 09, 2028 10:15:02 PM (Read by them after 2 seconds)\nMe\nyes! I'm bringing "
            "my sister, she's a nurse and knows every bone in the body\n\n"
            "Apr 09, 2028 10:16:40 PM\npat.quill@example.org\nha perfect, table for four then\n")
    assert [(s, r) for s, r, _ in turns(chat)] == [
        ("+447700900461", "person"), ("Me", "user"), ("pat.quill@example.org", "person")]


def test_a_table_of_texts_from_a_phone_backup_tool():
    """iMazing's CSV and an Android SMS backup's columns: a sent row is the user's (`Me`),
    a received one the sender's; a row with no text (a photo) is left out."""
    imazing = (
        "Chat Session,Message Date,Delivered Date,Read Date,Service,Type,Sender ID,Sender Name,"
        "Status,Text,Attachment\n"
        "Juniper,2028-02-11 07:58:01,,,iMessage,Outgoing,,,Delivered,"
        "\"morning, my ferret Pesto chewed through the charger again\",\n"
        "Juniper,2028-02-11 07:58:40,,,iMessage,Incoming,+447700900999,Juniper,Read,"
        "\"Oh no. Is he ok? Keep cables in a trunking tube, ferrets can't get a grip on it.\",\n"
        "Juniper,2028-02-11 07:59:12,,,iMessage,Outgoing,,,Delivered,,IMG_2231.HEIC\n"
        "Juniper,2028-02-11 08:01:05,,,iMessage,Outgoing,,,Delivered,\"he's fine, I work "
        "nights at the sorting office so I only found it at 7\",\n")
    assert turns(imazing) == [
        ("Me", "user", "morning, my ferret Pesto chewed through the charger again"),
        ("Juniper", "person", "Oh no. Is he ok? Keep cables in a trunking tube, ferrets can't get "
                              "a grip on it."),
        ("Me", "user", "he's fine, I work nights at the sorting office so I only found it at 7"),
    ]
    android = ("address;date;type;body;contact_name\n"
               "+447700900123;2028-03-01 18:02;1;did u book the campsite;Ros\n"
               "+447700900123;2028-03-01 18:05;2;yes, two nights at Loch Ness from the 12th;Ros\n"
               "+447700900123;2028-03-01 18:06;1;amazing;Ros\n")
    assert [(s, t) for s, _, t in turns(android)] == [
        ("Ros", "did u book the campsite"), ("Me", "yes, two nights at Loch Ness from the 12th"),
        ("Ros", "amazing")]


def test_a_table_that_is_no_message_log_stays_a_table():
    shopping = "item,shop,price\nmilk,Co-op,1.20\nbread,Greggs,1.50\n"
    assert {s for s, _, _ in turns(shopping)} == {""}
