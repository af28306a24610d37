"""Chinese facts a user states in passing reach a note (issue #30 item 6, docs/spec.md
§5.2.8): read from jieba's parts of speech, never from a phrase of the material —

* a thing the speaker keeps, named in a relative clause (我养的仓鼠, 我报的班), is theirs
  even inside a question ("我养的仓鼠不吃东西了怎么办");
* a family member as the subject (孙女, 老伴, 丈夫: a closed class of kin words) is the
  speaker's own;
* a clause with no subject that opens on a time word jieba tags as a locative (最近, 之前),
  that says how often (每天都…, 经常…), or where (在杭州做…, 在一家书店上班), tells of the
  speaker;
* a verb the dictionary tags as a noun is a verb before an aspect particle (换/nz 了);
* the word right after 的 heads a noun phrase whatever its tag (我的面试/v 过了);
* a thing moved to another time after the time it had (周三游泳改到周四了) is the speaker's,
  as a dated thing with no owner named is.

Every chat here is written for this test, in the forms of the issue's Chinese chats.
"""

from __future__ import annotations

from datetime import date

from reme_workbench.brains.offline_dream.zh_statements import read_chinese
from tests.brains.conftest import zh_topics as topics


def plans_of(chat: str):
    from reme_workbench.brains.offline_dream.conversation import plan_conversation
    from reme_workbench.brains.offline_dream.statements import segment

    blocks, statements = segment(chat)
    return plan_conversation(blocks, statements, day=date(2026, 5, 4))[0]


def test_a_thing_the_speaker_keeps_named_in_a_question_is_theirs():
    assert topics("我养的仓鼠不吃东西了怎么办") == ("仓鼠",)
    assert "吉他班" in " ".join(topics("我报的吉他班下周开课，要准备什么？"))
    # the listener's, or a question with no thing of the speaker's: nothing
    assert topics("你养的狗多大了？") == ()
    assert topics("仓鼠一般吃什么？") == ()


def test_a_family_member_as_the_subject_is_the_speakers():
    assert "钢琴八级" in topics("孙女妞妞下个月考钢琴八级")
    assert "糖尿病" in topics("老伴有糖尿病，饮食要注意")
    assert topics("丈夫下周出差") == ("丈夫",)


def test_a_clause_opening_on_a_time_jieba_tags_as_a_locative_tells_of_the_speaker():
    # 最近/f: a time, as 上周/t is
    assert topics("最近迷上拍星空了") == ("星空",)
    assert any("足球" in t for t in topics("最近踢足球脚踝扭了，一般多久能好？"))


def test_how_often_or_where_a_subjectless_clause_says_tells_of_the_speaker():
    assert any("广场" in t for t in topics("每天晚上都去跳广场舞"))
    assert topics("在杭州做后端开发") == ("杭州",)
    assert "书店" in topics("换了份兼职，现在在一家书店上班")


def test_a_verb_before_an_aspect_particle_is_a_verb_whatever_its_tag():
    assert topics("换了份兼职") == ("兼职",)


def test_the_word_after_de_heads_a_noun_phrase():
    assert topics("我的面试过了！") == ("面试",)


def test_a_thing_moved_from_its_time_is_the_speakers():
    assert topics("周三游泳改到周四了") == ("游泳",)


def test_remarks_requests_and_questions_state_nothing():
    for said in ("今天天气真好", "明天要下雨吗？", "你每天都跑步吗？", "在文档里加一段",
                 "你的方案不错", "一般多久能好？", "谢谢，辛苦了"):
        assert topics(said) == (), said


def test_the_facts_of_a_chinese_chat_in_passing_reach_a_plan():
    chat = ("用户：帮我做一个日语N1的复习计划\n"
            "助手：好的，可以分三个阶段。\n"
            "用户：我养的仓鼠不吃东西了怎么办\n"
            "助手：先看看笼子的温度。\n"
            "用户：孙女妞妞下个月考钢琴八级\n"
            "用户：最近迷上拍星空了\n"
            "用户：换了份兼职，现在在一家书店上班\n")
    said = " ".join(s for p in plans_of(chat) for s in p.said)
    for fact in ("仓鼠", "钢琴八级", "星空", "书店"):
        assert fact in said, (fact, said)


def test_the_users_answer_to_a_chinese_question_about_them_is_theirs():
    # the assistant asks the user about themselves (你…？, a full-width question mark);
    # the reply names what was asked, with no subject and often no verb
    chat = ("阿静：帮我排一个复习计划\n"
            "助手：好的。你考哪个学校、哪个专业？\n"
            "阿静：复旦大学的金融学，还有半年\n"
            "助手：明白了。\n")
    plans = plans_of(chat)
    assert any("复旦大学" in p.name or "金融学" in p.name for p in plans), [p.name for p in plans]
    # a reply to a question that asks nothing of the user stays context
    chat = ("阿静：帮我排一个复习计划\n"
            "助手：好的。这样安排可以吗？\n"
            "阿静：复旦大学的金融学资料多吗\n")
    assert not plans_of(chat)


def test_a_subjectless_clause_ending_on_le_tells_of_the_speaker():
    # 了 at the clause's end: a new state of the speaker's (the plan changed)
    assert topics("改坐高铁了") == ("高铁",)
    assert topics("开始学吉他了") == ("学吉他",)
    assert topics("天气变冷了") == ()  # a subject of its own


def test_a_thing_the_user_approves_is_taken_up():
    # 名词 + 这个 + 好/可以: the user takes up the thing (the assistant's suggestion)
    assert topics("烘焙课这个可以") == ("烘焙课",)
    assert "读书笔记" in topics("读书笔记这个好，我就每周写一篇")
    # an approval of no thing, or a thing asked about, is no statement
    assert topics("这个可以") == ()
    assert topics("烘焙课这个可以吗？") == ()


def test_a_proposal_ending_on_ba_is_the_speakers_decision():
    assert topics("送去宠物店吧") == ("宠物店",)
    assert topics("好吧") == () and topics("你试试吧") == ()


def test_a_named_assistant_in_chinese_is_found_by_what_it_says():
    # 小芽 never says 我 and answers at length; the user texts in short bursts — the
    # assistant's turns are no shorter in characters, though they have fewer spaces
    chat = ("阿梨：救命😭\n阿梨：面包又塌了\n阿梨：我最近迷上做面包了 天天做\n"
            "小芽：别急，塌陷多半是发酵过头，下次缩短二次发酵的时间试试。\n"
            "阿梨：好 我下次试试\n阿梨：对了 我下个月搬去厦门 新工作在一家设计公司\n"
            "小芽：恭喜！搬家前可以先把烤箱的尺寸量好，新家的厨房放不放得下。\n"
            "阿梨：哈哈 好\n"
            "小芽：厦门湿度大，面粉开封后要密封保存，不然容易受潮结块。\n"
            "阿梨：嗯嗯 我男朋友也在厦门\n"
            "小芽：那太好了，周末可以一起去逛逛。\n")
    from reme_workbench.brains.offline_dream.statements import segment

    blocks, _ = segment(chat)
    assert {b.speaker: b.role for b in blocks} == {"阿梨": "user", "小芽": "assistant"}
    plans = plans_of(chat)
    assert plans and {p.bucket for p in plans} == {"personal"}, [(p.name, p.bucket) for p in plans]
    assert not [p for p in plans if p.name.startswith("小芽")], [p.name for p in plans]


def test_a_good_night_after_a_statement_is_no_topic():
    assert topics("先去睡了 晚安") == ()
    assert topics("好的谢谢") == ()
    read = read_chinese("明白，写好了发你看", frozenset(), own=True)  # an answer's "got it"
    assert read is None or not read.topics


def test_an_assistant_that_says_it_advises_is_still_the_assistant():
    # 我建议, 我觉得, 我来帮你, 找我: the helper's own acts of helping, not a life it tells
    chat = ("赵磊：我在深圳做产品经理，想问问要不要读在职研究生\n"
            "小智：我建议先想清楚读研的目的。你是想转行还是升职？\n"
            "赵磊：想升职，公司里的总监基本都有硕士\n"
            "小智：明白了。我觉得在职读的话时间会很紧张，周末基本都要上课。\n"
            "赵磊：周末还要陪我家两只猫 哈哈\n"
            "小智：那可以把复习安排在工作日的晚上，周末留半天给自己。\n"
            "赵磊：好的，谢谢你\n"
            "小智：不客气，有问题随时找我，我来帮你整理报考材料。\n")
    from reme_workbench.brains.offline_dream.statements import segment

    blocks, _ = segment(chat)
    assert {b.speaker: b.role for b in blocks} == {"赵磊": "user", "小智": "assistant"}
    # a friend who tells of themselves is a person still
    friends = ("小林：我下个月去成都出差\n小周：我也要去成都，我表姐在那边开了家火锅店\n"
               "小林：真巧，我住春熙路\n小周：我住得离那不远，我周末去找你\n"
               "小林：好啊\n小周：我到时候带你去我表姐的店\n小林：好\n小周：我先去忙了\n")
    blocks, _ = segment(friends)
    assert {b.role for b in blocks} == {"person"}


def test_an_exam_or_title_in_latin_letters_is_a_thing():
    # N2, CPA: jieba tags Latin words "eng"; an acronym or a word with a digit names a thing
    assert topics("七月份考N2，已经报上名了") == ("N2",)
    assert topics("ok的") == ()


def test_something_done_with_the_speaker_is_theirs():
    # 跟我求婚了: another's act with the speaker, done — the speaker's news too; a nickname
    # jieba cuts in two (阿/j 凯/nr) is one name
    assert topics("阿凯昨天跟我求婚了！！") == ("阿凯",)
    assert topics("他跟我说明天下雨") == ()


def test_the_speakers_home_opening_a_clause_is_theirs():
    assert topics("家里两只猫，大黄和煤球")[:1] == ("猫",)
    assert topics("家里有一只柯基")[:1] == ("柯基",)


def test_a_dated_thing_after_its_time_and_de_is_the_speakers():
    assert topics("周三的游泳课改到周四了")[:1] == ("游泳课",)


def test_requests_and_asides_name_no_thing_of_the_speakers():
    # a request ending on 吧 asks; an A-not-A question asks; a character after an adverb or
    # 想 is a verb (问/n), not the head of a thing
    assert topics("帮我写个家长会的发言稿吧") == ()
    assert topics("会不会生病了") == ()
    assert topics("终于不用每顿都问老板了") == ("老板",)
    assert topics("想问一下，学区房值不值得买？") == ()


def test_json_like_role_lines_with_chinese_roles_or_single_quotes_are_turns():
    from reme_workbench.brains.offline_dream.statements import segment

    chinese_roles = ('{"role": "用户", "content": "我在苏州开了一家面包店，想定一下月饼的价格"}\n'
                     '{"role": "助手", "content": "好的，可以先算一下每盒的成本。"}\n'
                     '{"role": "用户", "content": "老公下个月去上海出差"}\n')
    single_quotes = ("{'role': 'user', 'content': '我在苏州开了一家面包店'}\n"
                     "{'role': 'assistant', 'content': '好的，可以先算一下每盒的成本。'}\n"
                     "{'role': 'user', 'content': '老公下个月去上海出差'}\n")
    for chat in (chinese_roles, single_quotes):
        blocks, _ = segment(chat)
        assert [b.role for b in blocks] == ["user", "assistant", "user"], chat
        assert any("面包店" in p.name for p in plans_of(chat)), chat
    # a line that only looks like one stays text
    blocks, _ = segment("{'role': owner, 'content': 'x'}\n{'role': 'user'\n")
    assert all(b.role != "user" for b in blocks)


def test_news_of_someone_in_the_speakers_life_is_told_by_them():
    # 她/他 or a name as the subject of something done, dated or placed: the speaker's
    # news of their own people (the user's partner, a child) — not what they said or think
    assert topics("她在电视台做剪辑")[:1] == ("电视台",) or "剪辑" in topics("她在电视台做剪辑")
    assert topics("阿凯求婚了！！") == ("阿凯",)
    assert topics("她下周五有个面试") == ("面试",)
    assert topics("他肯定说十一点睡不够") == ()
    assert topics("他觉得不好") == ()


def test_a_decision_opening_on_na_and_a_connective_is_the_speakers():
    # 那还是…, 那先…: "then" and a connective or an adverb — the speaker decides
    assert "妈" in "".join(topics("那还是放我妈那里"))
    # "then you could": a suggestion, not a decision
    assert topics("那可以在地铁上听播客") == ()


def test_an_activity_the_speaker_took_up_is_the_topic():
    # a verb after a verb, at the clause's end (迷上烘焙了, 开始健身了): the activity is the
    # thing — jieba tags it a verb; not after 想/要/去 (a wish, a going), nor a complement
    assert topics("我最近迷上烘焙了🍰 每周末都在家烤") == ("烘焙",)
    assert topics("上个月开始健身了") == ("健身",)
    assert topics("提前面试过了！！") == ("面试",)
    assert topics("我想出去") == () and topics("终于坚持下来了") == ()


def test_a_measure_is_no_thing():
    # 三个小时, 一个小时小楷: a unit of time or distance counts how much, it names no thing
    assert topics("想穿得好看点但是要站三个小时") == ()
    assert topics("最近每天晚上练一个小时小楷") == ("小楷",)


def test_jiebas_cuts_mended_by_the_form():
    # 小/a 周/nr: a name with its prefix; 挪/ns 到: a verb before its complement; 的 提前/v
    # 面试/v: the verbs after 的 are one noun phrase
    assert topics("小周昨晚求婚了") == ("小周",)
    assert topics("周二的羽毛球课挪到周五") == ("羽毛球课",)
    assert topics("上个月中大的提前面试过了") == ("提前面试",)


def test_a_texted_chinese_chat_with_a_named_assistant_reaches_notes_through_the_cli(dream_chat_cli):
    # as a user meets it: `reme-workbench dream` on a vault with a chat texted in bursts with
    # emoji to an assistant called by its own name; the facts said in passing are the user's
    chat = ("小蓝：救命🆘\n小蓝：我的马卡龙又空心了😭😭\n小蓝：烤了三次了\n"
            "小芽：空心多半是打发过度或者烤温偏高，可以试试把温度降十度再烤一次。\n"
            "小蓝：好 我下次试试\n小蓝：我最近迷上烘焙了🍰 下班就在家做\n"
            "小芽：烘焙很解压，记得把烤箱温度计也备上，家用烤箱的温差通常比较大。\n"
            "小蓝：对了！！小周昨晚求婚了💍💍\n"
            "小芽：恭喜恭喜！🎉 这是人生大事，祝你们幸福，婚礼的事情有需要随时说。\n"
            "小蓝：我养的仓鼠这两天不吃东西了怎么办\n"
            "小芽：先检查一下牙齿和笼子的温度，如果两天都不吃，最好带去看看异宠医生。\n")
    root = dream_chat_cli("马卡龙", chat)
    notes = {p.relative_to(root).as_posix(): p.read_text("utf-8")
             for p in sorted((root / "digest").rglob("*.md"))}
    personal = " ".join(text for path, text in notes.items() if path.startswith("digest/personal/"))
    for fact in ("迷上烘焙", "小周昨晚求婚", "仓鼠"):
        assert fact in personal, (fact, list(notes))
    assert not [p for p in notes if "小芽" in p], list(notes)  # the assistant is no person


def test_the_reply_to_any_chinese_question_about_the_user_is_theirs():
    # the question names no thing (你平时有什么爱好？, 您退休前是做什么的？) or asks after
    # the user's family with no owner said (孩子多大了？)
    for question, reply, fact in (("你平时有什么爱好？", "羽毛球，每周三晚上打", "羽毛球"),
                                  ("您退休前是做什么的？", "小学语文老师，教了三十年", "语文老师"),
                                  ("孩子多大了？", "三岁半，九月上幼儿园", "幼儿园")):
        chat = f"阿静：帮我安排一下周末\n助手：好的。{question}\n阿静：{reply}\n"
        assert any(fact in p.name for p in plans_of(chat)), (question, [p.name for p in plans_of(chat)])
    # an offer to the user is no question about them
    chat = "阿静：帮我安排一下周末\n助手：需要我帮你列个清单吗？\n阿静：清单就不用了\n"
    assert not plans_of(chat)


def test_the_outcome_of_a_named_thing_is_the_speakers_news():
    # X的Y + a verb done, with no owner said: the speaker's (岭南学院的提前面试过了); not a
    # plain thing's change (天气变冷了) nor a time's (今天的天气变冷了)
    assert "提前面试" in topics("岭南学院的提前面试过了！")
    assert topics("天气变冷了") == ()
    assert topics("今天的天气变冷了") == ()


def test_a_doubled_nickname_is_a_name():
    # 朵朵/q, 乐乐/a: a child's or a pet's doubled name, whatever the dictionary tags it
    assert topics("朵朵被录取了") == ("朵朵",)
    assert "疫苗" in topics("豆豆今天打疫苗")
    # doubled adverbs and kin words stay what they are
    assert topics("天天加班") == () and topics("星星很亮") == ()
