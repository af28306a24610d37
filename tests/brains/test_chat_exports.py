"""The forms chat apps export and people paste are read as turns (docs/spec.md §5.2.11,
brains/offline_dream/chat_exports.py and chat.normalise_transcript): a sender and a time on
a line of their own with the message below (WeChat, Telegram, Discord, Slack), LINE's tab
lines, WhatsApp on Android and iOS with the app's placeholders, ChatGPT's `You said:`,
`### User` headings, ShareGPT lines — and a checklist a file opens with, the author's own
lines. Each chat is written here, with other people and other words than any eval split.
"""

from __future__ import annotations

from click.testing import CliRunner

from reme_workbench.brains.offline_dream.chat import chat_kind
from reme_workbench.brains.offline_dream.statements import segment
from reme_workbench.cli import cli


def turns(text: str, **kwargs) -> list[tuple[str, str, str]]:
    """(speaker, role, text) of every block the segmenter makes of `text`."""
    blocks, _ = segment(text, **kwargs)
    return [(b.speaker, b.role, b.text) for b in blocks]


def kind(text: str) -> str | None:
    return chat_kind(segment(text)[0])


def dream_notes(make_vault, files: dict[str, str]) -> list[str]:
    """Every digest note written when the vault of `files` is dreamt, through the CLI."""
    vault = make_vault(files)
    result = CliRunner().invoke(cli, ["--vault", str(vault), "dream", "--embedder", "hashing",
                                      "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return [p.read_text(encoding="utf-8") for p in (vault / "digest").rglob("*.md")]


# -- a sender and a time on a line, the message below ------------------------------------------

WECHAT = ("阿芳 2027-03-04 21:10\n我下个月开始学游泳了\n\n"
          "AI助手 2027-03-04 21:10\n好啊，记得先找个教练。\n\n"
          "阿芳 2027-03-04 21:12\n我家猫叫年糕\n特别能吃\n\n"
          "AI助手 2027-03-04 21:13\n年糕这个名字真可爱。\n")


def test_a_wechat_export_is_a_chat_with_its_assistant():
    assert turns(WECHAT) == [
        ("阿芳", "user", "我下个月开始学游泳了"),
        ("AI助手", "assistant", "好啊，记得先找个教练。"),
        ("阿芳", "user", "我家猫叫年糕\n特别能吃"),
        ("AI助手", "assistant", "年糕这个名字真可爱。"),
    ]
    assert kind(WECHAT) == "assistant"


def test_a_wechat_export_between_two_people_stays_between_people():
    chat = ("Dana 2027-03-04 21:10\nI start my pottery class on Monday\n\n"
            "Ruth 2027-03-04 21:11\nno way!! which studio\n\n"
            "Dana 2027-03-04 21:12\n[图片]\n\n"
            "Dana 2027-03-04 21:12\nthe one on Elm street\n")
    assert turns(chat) == [
        ("Dana", "person", "I start my pottery class on Monday"),
        ("Ruth", "person", "no way!! which studio"),
        ("Dana", "person", "the one on Elm street"),  # the picture is no text
    ]
    assert kind(chat) == "people"


def test_telegram_discord_and_slack_copies():
    telegram = ("Priya Nair, [03.11.27 23:41]\nI got the job at the bakery!!\n\n"
                "Sam, [03.11.27 23:42]\nno way congrats\n")
    assert turns(telegram) == [("Priya Nair", "person", "I got the job at the bakery!!"),
                               ("Sam", "person", "no way congrats")]
    discord = ("Priya — Today at 11:41 PM\nI got the job at the bakery!!\nstarting monday\n"
               "Sam — Yesterday at 9:02 PM\nno way congrats\n")
    assert turns(discord) == [("Priya", "person", "I got the job at the bakery!! starting monday"),
                              ("Sam", "person", "no way congrats")]
    slack = ("Priya Nair  11:41 PM\nI got the job at the bakery!!\n"
             "Sam Lee  11:42 PM\nno way congrats\n"
             "Priya Nair  11:43 PM\nstarting monday on the early shift\n")
    assert turns(slack) == [("Priya Nair", "person", "I got the job at the bakery!!"),
                            ("Sam Lee", "person", "no way congrats"),
                            ("Priya Nair", "person", "starting monday on the early shift")]


def test_a_log_of_times_is_no_chat():
    """"Gym 18:00" over a line of what happened there is a log's entry, not a sender."""
    log = "Gym 07:30\nlegs and core\n\nDentist 09:15\nfilling on the left side\n"
    assert [s for s, _, _ in turns(log)] == ["", ""]


def test_lines_of_the_line_app():
    chat = ("2027.03.11 Thursday\n23:41\tPriya\tI got the job at the bakery!!\n"
            "23:42\tSam\tno way congrats\n23:43\tPriya\tstarting monday\n")
    assert [t for t in turns(chat) if t[0]] == [
        ("Priya", "person", "I got the job at the bakery!!"),
        ("Sam", "person", "no way congrats"),
        ("Priya", "person", "starting monday"),
    ]


def test_whatsapp_placeholders_are_no_text_on_android_and_ios():
    android = ("03/11/2027, 23:41 - Priya: I got the job at the bakery!!\n"
               "03/11/2027, 23:42 - Sam: <Media omitted>\n"
               "03/11/2027, 23:42 - Sam: no way congrats\nwhen do you start\n"
               "03/11/2027, 23:43 - Priya: This message was deleted\n"
               "03/11/2027, 23:44 - Priya: monday, early shifts\n")
    expected = [("Priya", "person", "I got the job at the bakery!!"),
                ("Sam", "person", "no way congrats when do you start"),
                ("Priya", "person", "monday, early shifts")]
    assert turns(android, plain_text=True) == expected
    ios = ("[03/11/2027, 23:41:05] Priya: I got the job at the bakery!!\n"
           "[03/11/2027, 23:42:10] Sam: \u200esticker omitted\n"
           "[03/11/2027, 23:42:30] Sam: no way congrats\nwhen do you start\n"
           "[03/11/2027, 23:43:00] Priya: \u200eYou deleted this message.\n"
           "[03/11/2027, 23:44:00] Priya: monday, early shifts\n")
    assert turns(ios, plain_text=True) == expected


# -- user ↔ assistant forms that already read ----------------------------------------------------


def test_chatgpt_copy_role_headings_and_sharegpt_lines():
    expected = [("user", "I keep bees on my allotment in Leeds."),
                ("assistant", "That's lovely! How many hives?"),
                ("user", "Two, since last spring.")]
    said = ("You said:\nI keep bees on my allotment in Leeds.\nChatGPT said:\n"
            "That's lovely! How many hives?\nYou said:\nTwo, since last spring.\n")
    headings = ("### User\nI keep bees on my allotment in Leeds.\n\n### Assistant\n"
                "That's lovely! How many hives?\n\n### User\nTwo, since last spring.\n")
    sharegpt = ('{"from": "human", "value": "I keep bees on my allotment in Leeds."}\n'
                '{"from": "gpt", "value": "That\'s lovely! How many hives?"}\n'
                '{"from": "human", "value": "Two, since last spring."}\n')
    for chat in (said, headings, sharegpt):
        assert [(r, t) for _, r, t in turns(chat)] == expected, chat
        assert kind(chat) == "assistant"


# -- a checklist to oneself ------------------------------------------------------------------------

CHECKLIST = ("- [x] book the ferry to Skye for the 14th\n"
             "- [ ] call mum about her knee operation on Friday\n"
             "- [ ] pay Tom back for the concert tickets\n")


def test_a_checklist_a_file_opens_with_is_the_users_own_lines():
    assert turns(CHECKLIST) == [
        ("User", "user", "book the ferry to Skye for the 14th"),
        ("User", "user", "call mum about her knee operation on Friday"),
        ("User", "user", "pay Tom back for the concert tickets"),
    ]
    assert kind(CHECKLIST) == "assistant"  # the vault's user's own words


def test_a_checklist_above_a_chat_is_the_users_under_the_chats_label():
    chat = CHECKLIST + ("\n**Hamish:** I'm taking my kayak to Skye next week.\n\n"
                        "**AI:** Sounds great, check the tide times first.\n")
    assert turns(chat)[:3] == [
        ("Hamish", "user", "book the ferry to Skye for the 14th"),
        ("Hamish", "user", "call mum about her knee operation on Friday"),
        ("Hamish", "user", "pay Tom back for the concert tickets"),
    ]
    assert turns(chat)[3:] == [("Hamish", "user", "I'm taking my kayak to Skye next week."),
                               ("AI", "assistant", "Sounds great, check the tide times first.")]


def test_a_checklist_above_prose_or_between_people_stays_a_list():
    for rest in ("\n## Notes\nThe release slipped to Thursday.\n",
                 "\nKate: are you coming saturday?\nSam: yes, bringing snacks\n"
                 "Kate: great\n"):
        assert all(s == "" for s, _, _ in turns(CHECKLIST + rest)[:3])


# -- dreamt, through the CLI ----------------------------------------------------------------------


def test_dreaming_a_wechat_export_keeps_the_users_facts_not_the_assistants(make_vault):
    chat = ("小周 2027-05-02 07:40\n我在杭州当中学老师，教了六年物理\n\n"
            "AI助手 2027-05-02 07:40\n物理老师很辛苦，我建议早点休息。\n\n"
            "小周 2027-05-02 07:42\n周末我要去千岛湖钓鱼\n")
    notes = dream_notes(make_vault, {"daily/2027-05-02/chat.md": chat})
    assert any("物理" in n for n in notes), notes
    assert not any("建议早点休息" in n for n in notes), notes
    assert not any("2027-05-02 07:40" in n for n in notes), notes


def test_dreaming_a_checklist_to_oneself_keeps_its_lines(make_vault):
    notes = dream_notes(make_vault, {"daily/2027-05-03/todo.md": CHECKLIST})
    assert any("knee operation" in n for n in notes), notes


# -- variants ------------------------------------------------------------------------------------


def test_twelve_hour_clocks_and_a_date_with_a_comma():
    """WhatsApp's 12-hour clock with the narrow no-break space its newer exports write before
    PM; Discord's `— 11/3/27, 11:41 PM`; WeChat's `下午 6:10`."""
    android = ("3/11/27, 11:41\u202fPM - Priya: I got the job at the bakery!!\n"
               "3/11/27, 11:42\u202fPM - Sam: no way congrats\n")
    ios = ("[3/11/27, 11:41:05\u202fPM] Priya: I got the job at the bakery!!\n"
           "[3/11/27, 11:42:05\u202fPM] Sam: no way congrats\n")
    discord = ("Priya — 11/3/27, 11:41 PM\nI got the job at the bakery!!\n"
               "Sam — 11/3/27, 11:42 PM\nno way congrats\n")
    for chat in (android, ios, discord):
        assert [(s, t) for s, _, t in turns(chat, plain_text=True)] == [
            ("Priya", "I got the job at the bakery!!"), ("Sam", "no way congrats")], chat
    wechat = "老马 下午 6:10\n今天水温多少度\n\n小雨 下午 6:11\n十三度\n\n老马 下午 6:12\n我游了八年了\n"
    assert [s for s, _, _ in turns(wechat)] == ["老马", "小雨", "老马"]


def test_a_placeholder_is_left_out_but_its_sender_still_takes_part():
    """LINE's `[Sticker]` and `unsent a message` are no text once their sender says something;
    a sender who sent nothing but them keeps their turn, so the chat stays one between two
    people, not one person's log."""
    chat = ("23:41\tPriya\tI got the job at the bakery!!\n23:42\tSam\t[Sticker]\n"
            "23:43\tPriya\tstarting monday\n23:44\tPriya\tPriya unsent a message.\n")
    assert [s for s, _, _ in turns(chat)] == ["Priya", "Sam", "Priya"]
    assert kind(chat) == "people"
    both = chat + "23:45\tSam\tcongrats!! where is it\n"
    assert [(s, t) for s, _, t in turns(both)] == [
        ("Priya", "I got the job at the bakery!!"), ("Priya", "starting monday"),
        ("Sam", "congrats!! where is it")]


def test_a_task_plugins_marks_are_tasks_too():
    tasks = ("- [/] repaint the shed door\n- [-] cancel the gym membership\n"
             "- [>] renew my passport before March\n")
    assert turns(tasks) == [("User", "user", "repaint the shed door"),
                            ("User", "user", "cancel the gym membership"),
                            ("User", "user", "renew my passport before March")]


def test_the_agent_named_in_an_export_is_the_assistant():
    chat = ("Priya Nair, [03.11.27 23:41]\nI just adopted a greyhound called Biscuit\n\n"
            "Nova, [03.11.27 23:41]\nCongratulations! Greyhounds love short walks.\n\n"
            "Priya Nair, [03.11.27 23:45]\nhe sleeps all day lol\n")
    assert [(s, r) for s, r, _ in turns(chat, agent_names=("Nova",))] == [
        ("Priya Nair", "user"), ("Nova", "assistant"), ("Priya Nair", "user")]
    assert [r for _, r, _ in turns(chat)] == ["person"] * 3  # without the name: two people


def test_a_checklist_above_role_labels_on_their_own_lines():
    chat = CHECKLIST + ("\n**user**\n\nI'm taking my kayak to Skye next week.\n\n"
                        "**assistant**\n\nSounds great, check the tide times first.\n")
    assert [(s, r) for s, r, _ in turns(chat)] == [("user", "user")] * 4 + [("assistant", "assistant")]


def test_a_documents_checklist_stays_its_steps():
    """In resource/ (segmented with bold headings, as documentation) a checklist is a list
    of steps, never the user's notes to self."""
    blocks, _ = segment(CHECKLIST, bold_headings=True)
    assert [(b.kind, b.speaker) for b in blocks] == [("item", "")] * 3


def test_a_teams_copy_with_the_time_before_the_sender():
    chat = ("[11:41 PM] Priya Nair\nI got the job at the bakery!!\n"
            "[11:42 PM] Sam Lee\nno way congrats\n"
            "[11:43 PM] Priya Nair\nstarting monday\n")
    assert turns(chat) == [("Priya Nair", "person", "I got the job at the bakery!!"),
                           ("Sam Lee", "person", "no way congrats"),
                           ("Priya Nair", "person", "starting monday")]
    log = "[07:30] Gym\nlegs and core\n[09:15] Dentist\nfilling on the left side\n"
    assert {s for s, _, _ in turns(log)} == {""}  # a log's entries, nobody's turns


def test_an_agent_by_its_own_name_in_a_whatsapp_export_is_the_assistant():
    """Its advice opening on a verb the tagger reads as an uninflected -ing or past form
    ("Re-read the lease…" parsed with the root `Re`, VBG) is no telling of itself with the
    subject left out."""
    chat = ("14/02/2028, 19:02 - dee: hey juno\n"
            "14/02/2028, 19:02 - Juno: Hi! What's up?\n"
            "14/02/2028, 19:03 - dee: signing for the flat in leith tmrw 😬\n"
            "14/02/2028, 19:03 - dee: ive never rented on my own before\n"
            "14/02/2028, 19:05 - Juno: Re-read the lease tonight. Check who pays for "
            "repairs and how much notice you have to give.\n"
            "14/02/2028, 19:06 - dee: ok will do\n"
            "14/02/2028, 19:07 - Juno: Take photos of every room on the first day so the "
            "deposit can't be held back for damage that was already there.\n"
            "14/02/2028, 19:09 - dee: im a nurse so ill be on nights the first week lol\n"
            "14/02/2028, 19:10 - Juno: Then book the meter readings for a day you're off.\n")
    roles = {s: r for s, r, _ in turns(chat, plain_text=True)}
    assert roles == {"dee": "user", "Juno": "assistant"}
