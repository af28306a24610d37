"""Chinese note names that read badly, mended from jieba's parse (issue #30 item 6,
docs/spec.md §5.2.8), never from a phrase of the material:

* a "name" (nr) between a verb and an aspect particle whose first character the
  dictionary reads as an adverb is an adverb and what it grades (坐/v 太久/nr 了: "sat too
  long") — no thing;
* a one-character "noun" between a verb and a noun that the dictionary reads with 一 as a
  numeral word (一条/m) is a classifier with its 一 left out (有/v 条/n 蓝裙子): not part
  of the thing's name.

Every sentence here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import zh_topics as topics


def test_an_adverb_and_what_it_grades_is_no_name():
    assert topics("今天开车开太久了") == ()
    assert topics("我见到小林了") == ("小林",)  # a name before 了 stays a name


def test_a_classifier_without_its_one_is_not_part_of_the_name():
    assert topics("我有条红围巾") == ("红围巾",)
    assert topics("我买了辆新车") == ("新车",)
    assert topics("我养了只猫") == ("猫",)
