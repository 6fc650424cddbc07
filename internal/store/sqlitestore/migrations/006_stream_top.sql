-- A stream's top offset is its newest update's, or its floor when it has none
-- (pruned or reset): it is no longer written by every append. A stream whose
-- newest update is missing (an old prune took it) keeps none, with its floor at
-- its top, so the offsets it gave are never given again.
DELETE FROM updates WHERE user_id IN (SELECT s.user_id FROM user_streams s
	WHERE NOT EXISTS (SELECT 1 FROM updates u WHERE u.user_id = s.user_id AND u.offset = s.top));
UPDATE user_streams SET floor = top WHERE NOT EXISTS (SELECT 1 FROM updates u
	WHERE u.user_id = user_streams.user_id AND u.offset = user_streams.top);
ALTER TABLE user_streams DROP COLUMN top;
