"""Chinese verbs jieba's dictionary tags as something else, read from its parse (issue #30
item 6, docs/spec.md §5.2.8), never from a phrase of the material:

* a one-character locative before a noun phrase that it makes a dictionary verb with
  (上/f 网球/n 课/n: 上课/v) is that verb split around its object — "take a class", not
  "on";
* a noun closing a clause with no verb, right after "with someone" (跟他视频, 和她电话),
  is the predicate: the speaker's act, when the clause says when.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import zh_topics as topics


def test_shang_before_a_class_is_the_verb_split_around_it():
    assert topics("每周三晚上上游泳课") == ("游泳课",)
    assert topics("周日下午在少年宫上书法课") == ("书法课", "少年宫")
    # 上 after a thing, before 的 or a verb: "on", no act of the speaker's
    assert topics("桌子上的杯子碎了") == ()
    assert topics("在阳台上晒被子") == ()


def test_a_noun_after_with_someone_is_what_the_speaker_does():
    assert topics("明天晚上跟她视频") == ("视频",)
    assert topics("下周和他电话") == ("电话",)
    # another subject, a question, or no time: not the speaker's act
    assert topics("她明天晚上跟他视频") == ()
    assert topics("明天晚上跟她视频吗") == ()
    assert topics("跟她视频") == ()


def test_both_reach_a_note_through_the_cli(dream_chat_cli):
    # as a user meets it: `reme-workbench dream` on a vault with a chat where these turns
    # are the only facts (no other statement of the user's for them to join)
    chat = ("用户：游泳课前吃东西好吗\n"
            "助手：课前一小时吃点好消化的，别吃太饱。\n"
            "用户：每周六上午上游泳课\n"
            "助手：那很好，课后可以在家练练憋气。\n"
            "用户：好，周五晚上跟他视频\n"
            "助手：视频的时候多夸夸他的进步。\n")
    root = dream_chat_cli("游泳", chat)
    personal = " ".join(p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md")))
    for fact in ("上游泳课", "周五晚上跟他视频"):
        assert fact in personal, (fact, personal)
