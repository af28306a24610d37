"""The user's facts reach a note, in the right bucket, from Chinese chats and from a
person's notes to themselves (issue #30 items 3 and 4; docs/spec.md §5.2.8, §5.2.9):

* a Chinese statement of the user's about themselves is read from jieba's parts of speech
  — with the subject left out after a time or an aspect adverb (刚, 已经), 我 after a
  connective, a thing of the speaker's home (家里的…), a clause that carries the subject
  of the one before it — while thanks, greetings, questions and the listener's things
  never are;
* a session with one speaker (`**Name:** …`, `[07:52] 名字：…`) is the vault's user's own
  notes: its facts are personal, named by the person;
* a Chinese chat whose user has only a role label (JSON role lines, `User:`) names the
  user in Chinese (`用户的…`), never `the user的…`.

Every chat here is written for this test, in the forms of issue #30 item 3.
"""

from __future__ import annotations

import json
from datetime import date

from click.testing import CliRunner

from reme_workbench.brains.offline_dream.zh_statements import read_chinese
from reme_workbench.cli import cli
from tests.brains.conftest import zh_topics as topics


def plans_of(chat: str):
    from reme_workbench.brains.offline_dream.conversation import plan_conversation
    from reme_workbench.brains.offline_dream.statements import segment

    blocks, statements = segment(chat)
    return plan_conversation(blocks, statements, day=date(2026, 5, 4))



# -- Chinese statements --------------------------------------------------------------------


def test_a_chinese_statement_with_the_speaker_left_out_is_the_speakers():
    # "this Sunday": 这 before a time is a determiner, not a subject
    assert "房子" in topics("好的 这周日去看房子，合同是下个月签")
    # an aspect adverb opens a clause with no subject: the speaker has just done it
    assert topics("刚下晚班，累死了") == ("晚班",)


def test_i_after_a_connective_is_the_subject_whatever_the_verb_is_tagged():
    # jieba tags 学 as a noun here: no verb after 我, still the speaker's statement
    assert any("二胡" in t for t in topics("另外我最近在学二胡，手指好酸"))


def test_a_thing_of_the_speakers_home_is_the_speakers():
    # 家里的柴犬: jieba cuts the unknown 柴犬 into 柴/nr 犬/ng; the phrase after 的 is whole
    assert topics("对了家里的柴犬最近不爱吃饭，有什么办法") == ("柴犬",)


def test_a_clause_without_a_subject_carries_on_the_one_before_it():
    # an apposition (一辆特斯拉) names what the clause before it did
    assert "特斯拉" in topics("上周刚换了车，一辆特斯拉")
    # a subject-less predicate after a statement tells one more thing: a reading of its own
    read = read_chinese("我刚搬到成都，在一家医院上班", frozenset())
    assert read is not None and read.groups == (("成都",), ("医院",))


def test_thanks_greetings_questions_and_the_listeners_things_are_no_statement():
    for said in ("谢谢！", "好的", "不客气", "早上好", "你的方案不错", "你觉得呢？",
                 "今天天气真好", "有什么办法"):
        assert topics(said) == (), said


def test_short_statements_count():
    assert topics("我养了一只猫") == ("猫",)


def test_two_things_told_in_one_sentence_are_two_notes():
    chat = ("用户：帮我看看这个小区的房租贵不贵\n"
            "助手：可以，告诉我大概的位置和预算。\n"
            "用户：我刚搬到成都，在一家医院上班，预算三千\n"
            "助手：医院附近的老小区会便宜一些。\n")
    plans, _ = plans_of(chat)
    names = [p.name for p in plans]
    assert "用户的成都" in names and "用户的医院" in names, names
    assert {p.bucket for p in plans} == {"personal"}


def test_a_chinese_chat_with_a_role_label_names_the_user_in_chinese(tmp_path):
    lines = [{"role": "user", "content": "我在南京开了一家花店，开了三年了"},
             {"role": "assistant", "content": "真不错！需要我帮你做什么？"},
             {"role": "user", "content": "帮我写一段母亲节的促销文案"},
             {"role": "assistant", "content": "好的，下面是一段文案。"}]
    chat = "\n".join(json.dumps(m, ensure_ascii=False) for m in lines) + "\n"
    plans, _ = plans_of(chat)
    names = [p.name for p in plans]
    assert names and all(n.startswith("用户的") for n in names), names
    assert any("花店" in n for n in names), names
    assert all("the user" not in p.description and "the user" not in " ".join(p.said)
               for p in plans)
    # and as a user meets it: the note dream writes
    root = vault_with(tmp_path, {"daily/2026-05-04/花店文案.md": chat})
    written = dream(root)
    assert any(p.startswith("digest/personal/用户的") and "花店" in p for p in written), written
    assert not [p for p in written if "the-user" in p], written


# -- one speaker ---------------------------------------------------------------------------

OWN_NOTES = """**Tomas:** Booked the plumber for Thursday morning.
**Tomas:** I coach my son's under-10 football team on Saturdays.
**Tomas:** My sister Ines lands from Porto on the 14th, pick her up at 6.
**Tomas:** Need to renew the van insurance before June.
"""

OWN_NOTES_ZH = """[07:40] 王磊：早上跑了五公里，膝盖有点疼
[07:52] 王磊：我下个月要去西安出差，记得订酒店
[08:05] 王磊：女儿的钢琴课改到周四了
"""


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def vault_with(tmp_path, files: dict[str, str]):
    root = tmp_path / "v"
    assert run("init", str(root), "--json").exit_code == 0
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def dream(root) -> dict[str, str]:
    result = run("--vault", str(root), "dream", "--embedder", "hashing", "--json")
    assert result.exit_code == 0, result.output
    return {p.relative_to(root).as_posix(): p.read_text("utf-8")
            for p in sorted((root / "digest").rglob("*.md"))}


def test_one_speakers_notes_to_themselves_are_the_users_personal_facts(tmp_path):
    root = vault_with(tmp_path, {"daily/2026-05-04/tomas-notes.md": OWN_NOTES,
                                 "daily/2026-05-05/王磊备忘.md": OWN_NOTES_ZH})
    written = dream(root)
    personal = [p for p in written if p.startswith("digest/personal/")]
    assert not [p for p in written if p.startswith("digest/wiki/")], written
    assert any(p.startswith("digest/personal/tomas-s-") and "football" in p for p in personal), personal
    assert any("sister" in p or "ines" in p for p in personal), personal
    assert any(p.startswith("digest/personal/王磊的") and ("西安" in p or "出差" in p)
               for p in personal), personal
    assert any("钢琴课" in p or "女儿" in p for p in personal), personal


# -- what the user takes up of the assistant's words ----------------------------------------


def test_what_the_user_confirms_of_a_chinese_question_is_theirs():
    chat = ("阿明：帮我规划一下周末去哪儿玩\n"
            "助手：好的。你是在杭州工作吗？\n"
            "阿明：对\n"
            "助手：那可以去西湖边走走。\n")
    plans, _ = plans_of(chat)
    (hangzhou,) = [p for p in plans if "杭州" in p.name]
    assert hangzhou.bucket == "personal" and hangzhou.person == "阿明"
    assert "确认了助手的“你是在杭州工作吗？”" in " ".join(hangzhou.said)


def test_a_decision_on_the_assistants_suggestion_is_the_users():
    chat = ("用户：成人游泳班一般怎么报？\n"
            "助手：可以报周末的成人班，或者晚上的私教课。\n"
            "用户：好的，那就先报周末的成人班吧\n")
    plans, _ = plans_of(chat)
    assert any("那就先报周末的成人班吧" in s for p in plans for s in p.said), \
        [(p.name, p.said) for p in plans]


def test_a_dated_thing_with_no_owner_named_is_the_speakers():
    # Chinese leaves out whose the thing is; in the user's own turn a date is theirs
    assert topics("婚宴从五月二号改到六月十五号")[:1] == ("婚宴",)
    assert topics("手术定在下周三") == ("手术",)
    # a report names a date of no one's
    assert topics("天气预报说明天下雨") == ()
    chat = ("小林：帮我改一下请假邮件\n助手：好的，请把原文发给我。\n"
            "小林：航班改到下周四了，邮件里日期要改\n")
    plans, _ = plans_of(chat)
    assert any("航班" in p.name and p.bucket == "personal" for p in plans), [p.name for p in plans]


def test_every_line_of_notes_to_oneself_is_the_users_whatever_its_form():
    notes = ("**Dana:** Kitchen shelves: need 3 brackets, oak not pine.\n"
             "**Dana:** Book club moved to Thursday the 9th.\n"
             "**Dana:** Remember to call the landlord about the boiler.\n"
             "Dana: Pottery class every Wednesday now.\n")
    plans, _ = plans_of(notes)
    names = [p.name for p in plans]
    assert {p.bucket for p in plans} == {"personal"}
    for topic in ("kitchen shelves", "book club", "landlord", "pottery class"):
        assert f"Dana's {topic}" in names, names
    zh = ("[07:40] 周敏：读书会改到周五晚上\n"
          "[08:10] 周敏：给房东打电话说热水器的事\n")
    names = [p.name for p in plans_of(zh)[0]]
    assert "周敏的读书会" in names and "周敏的热水器" in names, names


def test_a_yes_to_a_question_naming_a_thing_of_the_users_is_theirs():
    chat = ("user: big news today\nassistant: Tell me! Your piano exam?\n"
            "user: yes!! distinction, I still can't believe it\n"
            "assistant: Is everything ready for the trip?\nuser: yes\n")
    plans, _ = plans_of(chat)
    assert [p.name for p in plans] == ["The user's piano exam"], [p.name for p in plans]
    assert 'confirming the assistant\'s "Your piano exam?"' in " ".join(plans[0].said)
    assert plans[0].bucket == "personal"
    offer = ("user: can you fix my cv\nassistant: Should I add a paragraph on your Excel skills?\n"
             "user: yes\n")
    assert not [p for p in plans_of(offer)[0] if "Excel" in p.name]


def test_a_clause_that_opens_on_its_verb_goes_on_about_the_thing_before_it():
    # what the dog is called is the dog, not a second note (guards the split above)
    read = read_chinese("我上个月养了一只柴犬，叫年糕，两个月大", frozenset())
    assert read is not None and len(read.groups) == 1 and read.groups[0][:2] == ("柴犬", "年糕")
