"""A mined node refused as a note says the action in plain English ("cannot be supersedeed")."""

from stratum.notetrust import not_a_note


def test_each_action_reads_right():
    node = {"id": "m1234567", "kind": "fix", "meta": '{"sha": "abcdef123456"}'}
    for action, said in (("supersede", "superseded"), ("retract", "retracted"), ("confirm", "confirmed")):
        assert f"cannot be {said} " in str(not_a_note(node, action))
