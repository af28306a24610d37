"""Two phrases that are no thing of the speaker's (issue #30 item 6, docs/spec.md §5.2.8):

* an event before 后 / 以后 / 之后 says when (放学后能练四十分钟): it ranks after the
  clause's other things — dev4's 用户的放学;
* 有空 / 没空 "have (no) time" is a predicate, though jieba tags it a verbal noun and a
  count before it (六点多有空) made it a counted thing — dev4's 用户的有空, named on a
  decision (那就早上教) that took it as what the turn before named.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes
from tests.brains.conftest import zh_topics as topics


def test_an_event_before_after_says_when_and_ranks_last():
    assert topics("孩子们周二四放学后能练半小时")[:1] == ("孩子",)
    assert topics("我儿子放学以后去学游泳")[:1] == ("儿子",)
    # an event that is the clause's only thing stays its topic
    assert topics("我手术后恢复得不错") != ()


def test_having_time_is_no_thing():
    assert "有空" not in topics("我只有晚上九点多有空")
    assert "没空" not in topics("我周末两天都没空")
    assert topics("我有一家小店") == ("小店",)  # 有 taking a thing keeps the thing


def test_a_decision_on_when_is_not_named_on_having_time_through_the_cli(dream_chat_cli):
    chat = ("用户：我家鹦鹉多大能教说话？\n"
            "助手：一般半岁以后就可以教了。\n"
            "用户：我白天上班，只有晚上八点多有空，行吗\n"
            "助手：晚上也可以，每次十分钟就够。\n"
            "用户：那就晚上教\n")
    notes = digest_notes(dream_chat_cli("鹦鹉", chat))
    assert not any(name.endswith("有空") for name in notes), list(notes)
